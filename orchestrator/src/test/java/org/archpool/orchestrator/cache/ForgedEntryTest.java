package org.archpool.orchestrator.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.archpool.orchestrator.toolchain.JobPlanner;
import org.archpool.orchestrator.verify.ArtifactVerifier;
import org.archpool.orchestrator.verify.VerifyPolicy;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Entries that whoever can write to a cache (a shared remote one, say) could forge: a restore writes only the files
 * the job itself would have collected, in its own output folder, and all of them, or nothing at all; what it refuses
 * is evicted and the job is built. The entries are forged from a real one, over a real nvcc fat binary.
 */
@Tag("process")
class ForgedEntryTest {

    private static final Target CUDA_90 = new Target(Platform.CUDA, List.of("90"));

    @TempDir
    static Path binaries;
    static byte[] sm90;

    @TempDir
    Path dir;

    private Path work;
    private Path log;
    private Path victim;
    private DiskCache disk;
    private BuildCache cache;

    @BeforeAll
    static void fatbin() throws Exception {
        sm90 = NvccFatbin.of(binaries, "90");
    }

    @BeforeEach
    void setUp() throws Exception {
        work = Files.createDirectories(dir.resolve("work"));
        Files.writeString(work.resolve("k.cu"), "source");
        log = Files.createDirectories(dir.resolve("logs")).resolve("k.log");
        victim = Files.writeString(Files.createDirectories(dir.resolve("home")).resolve("bashrc"), "ORIGINAL\n");
        disk = DiskCache.open(dir.resolve("cache"), Clock.systemUTC());
        cache = new BuildCache(disk, null, false,
                platform -> new ToolchainIdentity(Digests.of("nvcc 13.0"), List.of()),
                new FileHashes(null, Clock.systemUTC()), Map.of("PATH", System.getenv("PATH")),
                new ArtifactVerifier(VerifyPolicy.STRICT), BuildCacheTest.NO_TOOLS, Clock.systemUTC(),
                note -> { });
    }

    /** A command job naming its output, as the reproduction's {@code nvcc … -o k.o}. */
    private CommandJob named(String output) {
        return new CommandJob("k", List.of("nvcc", "-fatbin", "k.cu", "-o", output), work.toString(), Map.of(), null,
                null, List.of("*.cu"));
    }

    /** A command job collecting {@code glob}. */
    private CommandJob globbing(String glob) {
        return new CommandJob("k", List.of("nvcc", "-fatbin", "k.cu"), work.toString(), Map.of(), null,
                List.of(glob), List.of("*.cu"));
    }

    private CacheLookup lookup(CommandJob job) {
        return cache.lookup(JobPlanner.standard().plan(job, CUDA_90, 1), log);
    }

    /** {@code job} built (its fat binary written at {@code output}) and stored; returns its key. */
    private String buildAndStore(CommandJob job, Path output) throws Exception {
        CacheLookup lookup = lookup(job);
        assertThat(lookup).isInstanceOf(CacheLookup.Miss.class);
        Files.createDirectories(output.getParent());
        Files.write(output, sm90);
        Files.writeString(log, "$ nvcc\n");
        CacheResult result = cache.store((CacheLookup.Miss) lookup, job,
                List.of(new Artifact(output.toString(), List.of("sm_90"))), 100, Map.of(), log);
        assertThat(result.status()).as(result.note()).isEqualTo(CacheStatus.STORED);
        Files.delete(output);
        return result.key();
    }

    /** A blob of a script in the cache, as an executable artifact at the victim's path. */
    private ActionEntry.StoredArtifact payload() throws Exception {
        Path script = Files.writeString(dir.resolve("p.sh"), "#!/bin/sh\necho PWNED\n");
        String sha = Digests.ofFile(script);
        disk.writeBlob(sha, script);
        return new ActionEntry.StoredArtifact(victim.toString(), sha, Files.size(script), true, List.of(), List.of());
    }

    /** Rewrites the artifacts of the entry under {@code key} with {@code forge}. */
    private void forge(String key, UnaryOperator<List<ActionEntry.StoredArtifact>> forge) throws Exception {
        ActionEntry e = ActionEntry.fromJson(Files.readAllBytes(disk.actionPath(key)), key);
        ActionEntry forged = new ActionEntry(e.keyVersion(), key, e.jobId(), e.platform(), e.archs(), e.createdAtMs(),
                e.buildMs(), e.phaseMs(), forge.apply(new ArrayList<>(e.artifacts())), e.log());
        disk.writeAction(key, forged.toJson());
    }

    private static ActionEntry.StoredArtifact at(ActionEntry.StoredArtifact a, String path) {
        return new ActionEntry.StoredArtifact(path, a.sha256(), a.size(), a.executable(), a.archs(),
                a.hostcallKernels());
    }

    /** The lookup is a miss naming {@code reason}; the entry is evicted; the victim is untouched. */
    private void assertRefused(CommandJob job, String key, String reason) throws Exception {
        CacheLookup lookup = lookup(job);
        assertThat(lookup).isInstanceOf(CacheLookup.Miss.class);
        assertThat(((CacheLookup.Miss) lookup).rejected()).contains(reason);
        assertThat(disk.actionPath(key)).as("the refused entry is evicted").doesNotExist();
        assertThat(Files.readString(victim)).isEqualTo("ORIGINAL\n");
    }

    @Test
    void anExtraArtifactOutsideTheJobsOutputFolderIsRefusedAndNothingIsWritten() throws Exception {
        Path out = work.resolve("k.fatbin");
        String key = buildAndStore(named("k.fatbin"), out);
        ActionEntry.StoredArtifact payload = payload();
        forge(key, artifacts -> {
            artifacts.add(payload);
            return artifacts;
        });

        assertRefused(named("k.fatbin"), key, victim + " is not in the job's output folder " + work);
        assertThat(out).as("not even the job's own file").doesNotExist();
    }

    @Test
    void aPathLeavingTheOutputFolderByDotDotOrIntoANewFolderElsewhereIsRefusedAndCreatesNothing() throws Exception {
        String key = buildAndStore(named("k.fatbin"), work.resolve("k.fatbin"));
        ActionEntry.StoredArtifact payload = payload();
        String dotDot = work + "/../home/bashrc";
        forge(key, artifacts -> List.of(at(payload, dotDot)));
        assertRefused(named("k.fatbin"), key, dotDot + " is not an absolute path without . or ..");

        key = buildAndStore(named("k.fatbin"), work.resolve("k.fatbin"));
        Path elsewhere = dir.resolve("new-folder").resolve("x");
        forge(key, artifacts -> {
            artifacts.add(at(payload, elsewhere.toString()));
            return artifacts;
        });
        assertRefused(named("k.fatbin"), key, "is not in the job's output folder");
        assertThat(dir.resolve("new-folder")).doesNotExist();
    }

    @Test
    void anEntryWithoutTheJobsOwnOutputIsRefused() throws Exception {
        String key = buildAndStore(named("k.fatbin"), work.resolve("k.fatbin"));
        forge(key, artifacts -> List.of());
        assertRefused(named("k.fatbin"), key, work.resolve("k.fatbin") + ", which the job's artifact rules require,"
                + " is missing");

        key = buildAndStore(globbing("k.fatbin"), work.resolve("k.fatbin"));
        forge(key, artifacts -> List.of());
        assertRefused(globbing("k.fatbin"), key, "which the job's artifact rules require, is missing");
    }

    @Test
    void anEntryWhosePathDiffersByOneByteIsRefused() throws Exception {
        String key = buildAndStore(named("k.fatbin"), work.resolve("k.fatbin"));
        forge(key, artifacts -> List.of(at(artifacts.get(0), work.resolve("k.fatbim").toString())));

        assertRefused(named("k.fatbin"), key, "k.fatbim is not one of the outputs the job's argv names");
        assertThat(work.resolve("k.fatbim")).doesNotExist();
    }

    @Test
    void aLinkOnTheWayIsNeverWrittenThrough() throws Exception {
        String key = buildAndStore(globbing("sub/*.fatbin"), work.resolve("sub/k.fatbin"));
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        Files.delete(work.resolve("sub"));
        Files.createSymbolicLink(work.resolve("sub"), elsewhere);

        assertRefused(globbing("sub/*.fatbin"), key, work.resolve("sub") + " is a link");
        try (var files = Files.list(elsewhere)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void aRefusedRestoreRemovesTheFoldersItCreated() throws Exception {
        String key = buildAndStore(globbing("deep/er/*.fatbin"), work.resolve("deep/er/k.fatbin"));
        Files.delete(work.resolve("deep/er"));
        Files.delete(work.resolve("deep"));
        ActionEntry e = ActionEntry.fromJson(Files.readAllBytes(disk.actionPath(key)), key);
        Files.delete(disk.blobPath(e.artifacts().get(0).sha256()));

        assertRefused(globbing("deep/er/*.fatbin"), key, "is missing");
        assertThat(work.resolve("deep")).doesNotExist();
    }

    @Test
    void anOutputOutsideTheJobsOutputFolderIsNotStored() throws Exception {
        CommandJob job = named("../k.fatbin");
        CacheLookup lookup = lookup(job);
        Path out = dir.resolve("k.fatbin");
        Files.write(out, sm90);

        CacheResult result = cache.store((CacheLookup.Miss) lookup, job,
                List.of(new Artifact(out.toString(), List.of("sm_90"))), 100, Map.of(), log);

        assertThat(result.status()).isEqualTo(CacheStatus.MISS);
        assertThat(result.note()).isEqualTo("not stored: its artifacts are not what a restore would accept: " + out
                + " is not in the job's output folder " + work);
        assertThat(disk.actionPath(result.key())).doesNotExist();
    }
}
