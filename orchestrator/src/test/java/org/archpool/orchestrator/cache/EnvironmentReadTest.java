package org.archpool.orchestrator.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.archpool.orchestrator.toolchain.JobPlanner;
import org.archpool.orchestrator.verify.ArtifactVerifier;
import org.archpool.orchestrator.verify.VerifyPolicy;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A CMakeLists that reads {@code $ENV{KV}} builds something else when {@code KV} changes, which reaches the job from
 * the coordinator's environment: the key holds the value the job gets.
 */
class EnvironmentReadTest {

    private static final Target CUDA_90 = new Target(Platform.CUDA, List.of("90"));

    @TempDir
    Path dir;

    private String key(CmakeJob job, Map<String, String> environment) throws Exception {
        BuildCache cache = new BuildCache(DiskCache.open(dir.resolve("cache"), Clock.systemUTC()), null, false,
                platform -> new ToolchainIdentity(Digests.of("nvcc 13.0"), List.of()),
                new FileHashes(null, Clock.systemUTC()), environment, new ArtifactVerifier(VerifyPolicy.STRICT),
                BuildCacheTest.NO_TOOLS, Clock.systemUTC(), note -> { });
        CacheLookup lookup = cache.lookup(JobPlanner.standard().plan(job, CUDA_90, 1), dir.resolve("k.log"));
        assertThat(lookup).isInstanceOf(CacheLookup.Miss.class);
        return ((CacheLookup.Miss) lookup).key().sha256();
    }

    @Test
    void theValueOfAVariableTheCMakeListsReadsIsInTheKeyAndNoOtherIs() throws Exception {
        Path src = Files.createDirectories(dir.resolve("p"));
        Files.writeString(src.resolve("CMakeLists.txt"), "project(p LANGUAGES CUDA)\nadd_library(p SHARED k.cu)\n"
                + "target_compile_definitions(p PRIVATE \"E=$ENV{KV}0\")\n");
        Files.writeString(src.resolve("k.cu"), "__global__ void k(float *x) { x[0] = 1; }\n");
        CmakeJob job = new CmakeJob("p", src.toString(), dir.resolve("build").toString(), null, null, null, null, null,
                null, null, null, null);

        String unset = key(job, Map.of("PATH", "/usr/bin"));
        String one = key(job, Map.of("PATH", "/usr/bin", "KV", "1"));
        String seven = key(job, Map.of("PATH", "/usr/bin", "KV", "7"));

        assertThat(List.of(unset, one, seven)).doesNotHaveDuplicates();
        assertThat(key(job, Map.of("PATH", "/usr/bin", "KV", "7", "OTHER", "x"))).as("a variable it does not read")
                .isEqualTo(seven);
        CmakeJob ownValue = new CmakeJob("p", job.sourceDir(), job.buildDir(), null, null, null, null, null, null,
                Map.of("KV", "7"), null, null);
        assertThat(key(ownValue, Map.of("PATH", "/usr/bin", "KV", "1")))
                .as("the job's own env wins, as in its processes")
                .isEqualTo(key(ownValue, Map.of("PATH", "/usr/bin", "KV", "7")));
    }
}
