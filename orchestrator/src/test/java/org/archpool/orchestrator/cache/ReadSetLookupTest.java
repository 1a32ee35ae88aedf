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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The entry of a {@code cmake} job is used only while every file its build read outside the key is what it was: a
 * header of an {@code include_directories} folder outside the project that changed, or is gone, makes the lookup a
 * miss that names it, and leaves the entry in place; an entry that records no read set is refused.
 */
class ReadSetLookupTest {

    private static final Target CUDA_90 = new Target(Platform.CUDA, List.of("90"));

    @TempDir
    Path dir;

    private DiskCache disk;
    private BuildCache cache;
    private CmakeJob job;
    private Path outside;

    @BeforeEach
    void project() throws Exception {
        Path src = Files.createDirectories(dir.resolve("p"));
        Files.writeString(src.resolve("CMakeLists.txt"), "project(p LANGUAGES CUDA)\n"
                + "include_directories(" + dir.resolve("outside") + ")\nadd_library(p SHARED k.cu)\n");
        Files.writeString(src.resolve("k.cu"), "#include \"outside.h\"\nstatic_assert(OUTSIDE == 1, \"\");\n");
        outside = Files.writeString(Files.createDirectories(dir.resolve("outside")).resolve("outside.h"),
                "#define OUTSIDE 1\n");
        job = new CmakeJob("p", src.toString(), dir.resolve("build").toString(), null, null, null, null, null, null,
                null, null, null);
        disk = DiskCache.open(dir.resolve("cache"), Clock.systemUTC());
        cache = new BuildCache(disk, null, false, platform -> new ToolchainIdentity(Digests.of("nvcc 13.0"), List.of()),
                new FileHashes(null, Clock.systemUTC()), Map.of("PATH", "/usr/bin"),
                new ArtifactVerifier(VerifyPolicy.STRICT), BuildCacheTest.NO_TOOLS, Clock.systemUTC(), note -> { });
    }

    private CacheLookup lookup() {
        return cache.lookup(JobPlanner.standard().plan(job, CUDA_90, 1), dir.resolve("p.log"));
    }

    /** Stores an entry under the job's key as a build that read {@code outside.h} as it is now would have. */
    private String storeEntry(ReadSet reads) throws Exception {
        String key = ((CacheLookup.Miss) lookup()).key().sha256();
        disk.writeAction(key, new ActionEntry(ActionKey.VERSION, key, "p", "cuda", List.of("90"), 1, 1, Map.of(),
                List.of(), null, reads).toJson());
        return key;
    }

    @Test
    void aChangedFileTheBuildReadOutsideTheKeyIsAMissNamingIt() throws Exception {
        String key = storeEntry(ReadSet.hash(List.of(outside), new FileHashes(null, Clock.systemUTC())));
        assertThat(lookup()).as("unchanged, the entry is not outdated")
                .matches(l -> !(l instanceof CacheLookup.Miss m) || m.outdated() == null);

        Files.writeString(outside, "#define OUTSIDE 2\n");
        CacheLookup changed = lookup();

        assertThat(changed).isInstanceOf(CacheLookup.Miss.class);
        CacheLookup.Miss miss = (CacheLookup.Miss) changed;
        assertThat(miss.outdated()).isEqualTo(outside + " changed");
        assertThat(miss.rejected()).isNull();
        assertThat(miss.reason()).isEqualTo(MissReason.READ_SET_CHANGED);
        assertThat(miss.note()).contains(outside + " changed");
        assertThat(disk.readAction(key)).as("an outdated entry is not evicted").isNotNull();
    }

    @Test
    void aFileTheBuildReadThatIsGoneIsAMissNamingIt() throws Exception {
        storeEntry(ReadSet.hash(List.of(outside), new FileHashes(null, Clock.systemUTC())));
        Files.delete(outside);

        CacheLookup.Miss miss = (CacheLookup.Miss) lookup();

        assertThat(miss.outdated()).isEqualTo(outside + " is gone");
        assertThat(miss.reason()).isEqualTo(MissReason.READ_SET_CHANGED);
    }

    @Test
    void anEntryOfACmakeJobWithoutAReadSetIsRefused() throws Exception {
        storeEntry(null);

        CacheLookup.Miss miss = (CacheLookup.Miss) lookup();

        assertThat(miss.rejected()).contains("does not record what its build read");
    }
}
