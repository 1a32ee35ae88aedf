package org.archpool.orchestrator.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.archpool.orchestrator.tool.ToolRunner;
import org.archpool.orchestrator.toolchain.ConcreteJob;
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

/** The cache's lookup, restore and store on real CUDA fat binaries made by nvcc. */
@Tag("process")
class BuildCacheTest {

    private static final Target CUDA_90 = new Target(Platform.CUDA, List.of("90"));

    /** For caches that run no tool: their jobs are command jobs, or only looked up. */
    static final ToolRunner NO_TOOLS = (command, timeout) -> {
        throw new AssertionError("no tool is run here: " + command);
    };

    @TempDir
    static Path binaries;
    static byte[] sm90;
    static byte[] sm80;

    @TempDir
    Path dir;

    private Path work;
    private Path out;
    private Path log;
    private DiskCache disk;
    private final List<String> notes = new ArrayList<>();
    private BuildCache cache;
    private CommandJob job;

    @BeforeAll
    static void fatbins() throws Exception {
        sm90 = NvccFatbin.of(binaries, "90");
        sm80 = NvccFatbin.of(binaries, "80");
    }

    @BeforeEach
    void setUp() throws Exception {
        work = Files.createDirectories(dir.resolve("work"));
        Files.writeString(work.resolve("k.cu"), "source");
        out = work.resolve("k.fatbin");
        log = Files.createDirectories(dir.resolve("logs")).resolve("k.log");
        disk = DiskCache.open(dir.resolve("cache"), Clock.systemUTC());
        cache = newCache();
        job = new CommandJob("k", List.of("nvcc", "-fatbin", "k.cu"), work.toString(), Map.of(), null,
                List.of("k.fatbin"), List.of("*.cu"));
    }

    /** One cache serves every target: each lookup's target comes with its concrete job. */
    private BuildCache newCache() {
        return newCache(null);
    }

    /** With {@code remote} (written to) behind the local cache, or none. */
    private BuildCache newCache(CacheBackend remote) {
        return new BuildCache(disk, remote, remote != null,
                platform -> new ToolchainIdentity(Digests.of("nvcc 13.0"), List.of()), new FileHashes(null, Clock.systemUTC()),
                Map.of("PATH", System.getenv("PATH")), new ArtifactVerifier(VerifyPolicy.STRICT), NO_TOOLS,
                Clock.systemUTC(), notes::add);
    }

    private ConcreteJob concrete(CommandJob j, Target target) {
        return JobPlanner.standard().plan(j, target, 1);
    }

    /** The job "built": its fat binary in place and its log written, looked up (a miss) and stored. */
    private CacheResult buildAndStore(byte[] fatbin, List<String> archs) throws Exception {
        CacheLookup lookup = cache.lookup(concrete(job, CUDA_90), log);
        assertThat(lookup).isInstanceOf(CacheLookup.Miss.class);
        Files.write(out, fatbin);
        Files.writeString(log, "$ nvcc -fatbin k.cu\n");
        // the phases in the order they ran, as the scheduler hands them over (Map.of has no order)
        Map<String, Long> phases = new java.util.LinkedHashMap<>();
        phases.put("command", 1200L);
        phases.put("inspect", 34L);
        return cache.store((CacheLookup.Miss) lookup, job, List.of(new Artifact(out.toString(), archs)), 1234,
                phases, log);
    }

    private ActionEntry entry(String key) throws Exception {
        return ActionEntry.fromJson(Files.readAllBytes(disk.actionPath(key)), key);
    }

    @Test
    void aStoredJobIsRestoredWithItsLogAndItsGpuCodeReadAgain() throws Exception {
        CacheResult stored = buildAndStore(sm90, List.of("sm_90"));
        assertThat(stored.status()).isEqualTo(CacheStatus.STORED);
        Files.delete(out);
        Files.delete(log);

        CacheLookup lookup = cache.lookup(concrete(job.withId("other-id"), CUDA_90), log);

        assertThat(lookup).isInstanceOf(CacheLookup.Hit.class);
        CacheLookup.Hit hit = (CacheLookup.Hit) lookup;
        assertThat(hit.key().sha256()).isEqualTo(stored.key());
        assertThat(hit.artifacts()).singleElement().satisfies(a -> {
            assertThat(a.path()).isEqualTo(out.toString());
            assertThat(a.archs()).containsExactly("sm_90");
        });
        assertThat(Files.readAllBytes(out)).isEqualTo(sm90);
        assertThat(Files.readString(log)).contains("restored from the cache (key " + stored.key())
                .contains("in 1234 ms (command 1200 ms, inspect 34 ms)")
                .contains("$ nvcc -fatbin k.cu");
        assertNoRestoreLeftovers();
    }

    @Test
    void aRestoredLogReplacesAHardLinkedOldLogWithoutWritingThroughIt() throws Exception {
        buildAndStore(sm90, List.of("sm_90"));
        Files.delete(out);
        Path elsewhere = Files.writeString(dir.resolve("someone-elses-file"), "keep me");
        Files.delete(log);
        Files.createLink(log, elsewhere);

        assertThat(cache.lookup(concrete(job, CUDA_90), log)).isInstanceOf(CacheLookup.Hit.class);

        assertThat(elsewhere).hasContent("keep me");
        assertThat(Files.readString(log)).contains("restored from the cache");
    }

    @Test
    void anEditedInputIsAMiss() throws Exception {
        buildAndStore(sm90, List.of("sm_90"));
        Files.writeString(work.resolve("k.cu"), "source, edited");
        assertThat(cache.lookup(concrete(job, CUDA_90), log)).isInstanceOf(CacheLookup.Miss.class);
    }

    @Test
    void anEntryIsNeverFoundForAnotherArchitecture() throws Exception {
        CacheResult first = buildAndStore(sm90, List.of("sm_90"));
        assertThat(first.status()).isEqualTo(CacheStatus.STORED);
        assertThat(first.missReason()).as("a first build finds no entry").isEqualTo(MissReason.NO_ENTRY);
        Target cuda80 = new Target(Platform.CUDA, List.of("80"));
        CacheLookup lookup = newCache().lookup(concrete(job, cuda80), log);
        assertThat(lookup).isInstanceOf(CacheLookup.Miss.class);
        assertThat(((CacheLookup.Miss) lookup).rejected()).isNull();
        assertThat(((CacheLookup.Miss) lookup).reason()).as("another target is another key")
                .isEqualTo(MissReason.NO_ENTRY);
    }

    @Test
    void aFlippedByteInABlobIsRejectedAndEvictedAndNothingIsRestored() throws Exception {
        CacheResult stored = buildAndStore(sm90, List.of("sm_90"));
        String blob = entry(stored.key()).artifacts().get(0).sha256();
        byte[] bytes = Files.readAllBytes(disk.blobPath(blob));
        bytes[bytes.length / 2] ^= 0x01;
        Files.write(disk.blobPath(blob), bytes);
        Files.writeString(out, "what the folder held");

        CacheLookup lookup = cache.lookup(concrete(job, CUDA_90), log);

        assertThat(lookup).isInstanceOf(CacheLookup.Miss.class);
        assertThat(((CacheLookup.Miss) lookup).rejected()).contains("does not match its digest");
        assertThat(out).hasContent("what the folder held");
        assertThat(disk.actionPath(stored.key())).doesNotExist();
        assertThat(disk.blobPath(blob)).doesNotExist();
        assertNoRestoreLeftovers();
        // rebuilt and stored again: the result says an entry was refused
        Files.write(out, sm90);
        CacheResult again = cache.store((CacheLookup.Miss) lookup, job,
                List.of(new Artifact(out.toString(), List.of("sm_90"))), 10, Map.of(), log);
        assertThat(again.status()).isEqualTo(CacheStatus.REJECTED);
        assertThat(again.note()).contains("does not match its digest");
        assertThat(again.missReason()).isEqualTo(MissReason.REJECTED);
        assertThat(disk.blobPath(blob)).exists();
    }

    @Test
    void anEntryWhoseBlobHoldsAnotherArchitectureThanRecordedIsRejected() throws Exception {
        CacheResult stored = buildAndStore(sm90, List.of("sm_90"));
        handMade(stored.key(), sm80, List.of("sm_90"));
        Files.writeString(out, "what the folder held");

        CacheLookup lookup = cache.lookup(concrete(job, CUDA_90), log);

        assertThat(((CacheLookup.Miss) lookup).rejected()).contains("holds sm_80").contains("recorded sm_90");
        assertThat(out).hasContent("what the folder held");
        assertThat(disk.actionPath(stored.key())).doesNotExist();
        assertNoRestoreLeftovers();
    }

    @Test
    void aHandMadeEntryForAnotherArchitectureUnderThisKeyFailsStrictVerification() throws Exception {
        CacheResult stored = buildAndStore(sm90, List.of("sm_90"));
        handMade(stored.key(), sm80, List.of("sm_80"));
        Files.delete(out);

        CacheLookup lookup = cache.lookup(concrete(job, CUDA_90), log);

        assertThat(((CacheLookup.Miss) lookup).rejected()).contains("strict verification").contains("lacks");
        assertThat(out).doesNotExist();
    }

    @Test
    void anEntryStoredForAnotherTargetIsRejected() throws Exception {
        CacheResult stored = buildAndStore(sm90, List.of("sm_90"));
        ActionEntry e = entry(stored.key());
        ActionEntry moved = new ActionEntry(e.keyVersion(), e.key(), e.jobId(), "cuda", List.of("80"),
                e.createdAtMs(), e.buildMs(), e.phaseMs(), e.artifacts(), e.log());
        disk.writeAction(stored.key(), moved.toJson());

        CacheLookup lookup = cache.lookup(concrete(job, CUDA_90), log);

        assertThat(((CacheLookup.Miss) lookup).rejected()).contains("stored for cuda [80]");
    }

    @Test
    void aDamagedEntryIsRejected() throws Exception {
        CacheResult stored = buildAndStore(sm90, List.of("sm_90"));
        disk.writeAction(stored.key(), "{\"keyVersion\": 1, \"key\": \"".getBytes(StandardCharsets.UTF_8));
        CacheLookup lookup = cache.lookup(concrete(job, CUDA_90), log);
        assertThat(((CacheLookup.Miss) lookup).rejected()).contains("not valid JSON");
        assertThat(disk.actionPath(stored.key())).doesNotExist();
    }

    @Test
    void gpuCodeThatFailsStrictVerificationIsNotStored() throws Exception {
        CacheResult result = buildAndStore(sm80, List.of("sm_80"));
        assertThat(result.status()).isEqualTo(CacheStatus.MISS);
        assertThat(result.note()).startsWith("not stored: its GPU code does not pass strict verification");
        assertThat(disk.actionPath(result.key())).doesNotExist();
    }

    @Test
    void aCommandJobWithoutInputsIsUncacheable() {
        CommandJob noInputs = new CommandJob("k", job.argv(), work.toString(), Map.of(), null, List.of("k.fatbin"));
        CacheLookup lookup = cache.lookup(concrete(noInputs, CUDA_90), log);
        assertThat(lookup).isInstanceOf(CacheLookup.Uncacheable.class);
    }

    @Test
    void aCacheThatCannotBeWrittenIsReportedOnceAndCostsNoOutcome() throws Exception {
        Path tmp = disk.root().resolve("tmp");
        Files.delete(tmp);
        Files.writeString(tmp, "not a folder"); // every write into the cache now fails
        CacheResult first = buildAndStore(sm90, List.of("sm_90"));
        CacheResult second = buildAndStore(sm90, List.of("sm_90"));
        assertThat(first.status()).isEqualTo(CacheStatus.MISS);
        assertThat(first.note()).startsWith("not stored:");
        assertThat(second.status()).isEqualTo(CacheStatus.MISS);
        assertThat(notes).singleElement().asString().contains("cannot be written");
    }

    @Test
    void aLocalBlobLongerThanItsEntryRecordsIsRejectedAsDamagedAndEvicted() throws Exception {
        CacheResult stored = buildAndStore(sm90, List.of("sm_90"));
        String blob = entry(stored.key()).artifacts().get(0).sha256();
        Files.write(disk.blobPath(blob), new byte[] {0}, java.nio.file.StandardOpenOption.APPEND);
        Files.writeString(out, "what the folder held");

        CacheLookup lookup = cache.lookup(concrete(job, CUDA_90), log);

        assertThat(((CacheLookup.Miss) lookup).rejected()).contains("the blob " + blob)
                .contains("is not the size its entry records").contains(sm90.length + " bytes");
        assertThat(out).hasContent("what the folder held");
        assertThat(disk.actionPath(stored.key())).doesNotExist();
        assertThat(disk.blobPath(blob)).doesNotExist();
        assertNoRestoreLeftovers();
    }

    @Test
    void aLogLongerThanItsEntryRecordsIsSaidDamagedAndTheArtifactsAreStillRestored() throws Exception {
        CacheResult stored = buildAndStore(sm90, List.of("sm_90"));
        ActionEntry.Blob logBlob = entry(stored.key()).log();
        Files.writeString(disk.blobPath(logBlob.sha256()), "a log that no build wrote, longer than the real one\n");
        Files.delete(out);

        assertThat(cache.lookup(concrete(job, CUDA_90), log)).isInstanceOf(CacheLookup.Hit.class);

        assertThat(Files.readAllBytes(out)).isEqualTo(sm90);
        assertThat(Files.readString(log)).contains("the log of that build is damaged in the cache (it is not the "
                + logBlob.size() + " bytes its entry records)").doesNotContain("a log that no build wrote");
    }

    @Test
    void aRemoteBlobOfAnotherSizeIsRejectedAsDamagedAndTheRemoteStaysOn() throws Exception {
        DiskCache remote = DiskCache.open(dir.resolve("remote"), Clock.systemUTC());
        cache = newCache(remote);
        CacheResult stored = buildAndStore(sm90, List.of("sm_90"));
        String blob = entry(stored.key()).artifacts().get(0).sha256();
        Files.write(remote.blobPath(blob), new byte[] {0}, java.nio.file.StandardOpenOption.APPEND);
        disk = DiskCache.open(dir.resolve("another-machine"), Clock.systemUTC());
        cache = newCache(remote);
        Files.delete(out);

        CacheLookup lookup = cache.lookup(concrete(job, CUDA_90), log);

        assertThat(((CacheLookup.Miss) lookup).rejected()).contains("the blob " + blob)
                .contains("is not the size its entry records");
        assertThat(out).doesNotExist();
        assertThat(remote.actionPath(stored.key())).as("evicted from the remote").doesNotExist();
        assertThat(notes).as("a damaged blob does not turn the remote off").isEmpty();
    }

    @Test
    void anEntryLargerThanAnEntryMayBeIsNotStored() throws Exception {
        CacheLookup lookup = cache.lookup(concrete(job, CUDA_90), log);
        Files.write(out, sm90);
        List<String> kernels = java.util.stream.IntStream.range(0, ActionEntry.MAX_BYTES / 24)
                .mapToObj(i -> "kernel_with_a_long_name_" + i).toList();

        CacheResult result = cache.store((CacheLookup.Miss) lookup, job,
                List.of(new Artifact(out.toString(), List.of("sm_90"), null, kernels)), 10, Map.of(), log);

        assertThat(result.status()).isEqualTo(CacheStatus.MISS);
        assertThat(result.note()).startsWith("not stored: its entry would be")
                .contains("more than the " + ActionEntry.MAX_BYTES + " an entry may have");
        assertThat(disk.actionPath(result.key())).doesNotExist();
    }

    /** Replaces the entry's one artifact by {@code bytes}, recorded with {@code archs}. */
    private void handMade(String key, byte[] bytes, List<String> archs) throws Exception {
        Path file = Files.write(dir.resolve("hand-made"), bytes);
        String sha = Digests.ofFile(file);
        disk.writeBlob(sha, file);
        ActionEntry e = entry(key);
        ActionEntry.StoredArtifact a = e.artifacts().get(0);
        ActionEntry forged = new ActionEntry(e.keyVersion(), key, e.jobId(), e.platform(), e.archs(), e.createdAtMs(),
                e.buildMs(), e.phaseMs(), List.of(new ActionEntry.StoredArtifact(a.path(), sha, bytes.length, false, archs,
                List.of())), e.log());
        disk.writeAction(key, forged.toJson());
    }

    private void assertNoRestoreLeftovers() throws Exception {
        try (Stream<Path> files = Files.list(work)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith(".archpool-restore"));
        }
    }
}
