package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The build cache against real CMake, nvcc and the distribution: hits restored into fresh build folders and checked,
 * no hit across architectures, and its faults (two builds at once, a coordinator killed while storing, a flipped
 * byte, a hand-made entry of another architecture, a cache folder that is read-only, full or another user's). Every
 * test has a cache folder of its own.
 */
class CacheIT {

    @TempDir
    Path dir;

    @BeforeAll
    static void tools() {
        RequiredTool.require("cmake", "ninja", "nvcc");
    }

    private static String kernel(String name) {
        return "__global__ void " + name + "(float *x) { x[threadIdx.x] *= 2.0f; }\n";
    }

    /** A folder with {@code n} nvcc command jobs, each compiling its own kernel into a fat binary. */
    private Path nvccJobs(Path folder, int n) throws Exception {
        Files.createDirectories(folder);
        StringBuilder jobs = new StringBuilder();
        for (int i = 0; i < n; i++) {
            Files.writeString(folder.resolve("k" + i + ".cu"), kernel("k" + i));
            jobs.append(i == 0 ? "" : ",").append("{\"id\": \"k").append(i).append("\", \"kind\": \"command\",")
                    .append(" \"argv\": [\"nvcc\", \"-fatbin\", \"{offload-arch-flags}\", \"-o\", \"k").append(i)
                    .append(".fatbin\", \"k").append(i).append(".cu\"], \"inputs\": [\"k").append(i)
                    .append(".cu\"]}");
        }
        return Archpool.manifest(folder, "{\"version\": 1, \"jobs\": [" + jobs + "]}");
    }

    private static Archpool.Run build(Path manifest, Path cache, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("build", manifest.toString(), "--platform", "cuda", "--arch", "90",
                "-j2", "--cache", cache.toString()));
        args.addAll(List.of(more));
        return new Archpool().in(manifest.getParent()).run(args.toArray(String[]::new));
    }

    private static JsonNode report(Path manifest) throws Exception {
        return ReportSchema.assertValid(manifest.getParent().resolve(".archpool/report.json"));
    }

    private static List<String> statuses(JsonNode report) {
        List<String> s = new ArrayList<>();
        report.path("jobs").forEach(j -> s.add(j.path("cache").asText()));
        return s;
    }

    @Test
    void cmakeProjectsAreRestoredIntoFreshBuildFoldersAndNeverForAnotherArchitecture() throws Exception {
        Path quickstart = Archpool.copyTree(Archpool.repo().resolve("examples/quickstart"), dir.resolve("qs"));
        Path manifest = Archpool.manifest(quickstart, "{\"version\": 1, \"jobs\": ["
                + "{\"id\": \"vector_add\", \"kind\": \"cmake\", \"sourceDir\": \"vector_add\"},"
                + "{\"id\": \"saxpy\", \"kind\": \"cmake\", \"sourceDir\": \"saxpy\"}]}");
        Path cache = dir.resolve("cache");

        Archpool.Run cold = build(manifest, cache);
        assertThat(cold.exitCode()).as(cold.toString()).isZero();
        assertThat(statuses(report(manifest))).containsExactly("stored", "stored");
        Path lib = quickstart.resolve("build/vector_add/libvector_add_kernels.so");
        byte[] built = Files.readAllBytes(lib);
        Archpool.deleteTree(quickstart.resolve("build"));

        Archpool.Run warm = build(manifest, cache);

        assertThat(warm.exitCode()).as(warm.toString()).isZero();
        JsonNode r = report(manifest);
        assertThat(statuses(r)).containsExactly("hit", "hit");
        assertThat(r.path("cache").path("hitRate").asDouble()).isEqualTo(1.0);
        for (JsonNode job : r.path("jobs")) {
            assertThat(job.path("attempts").asInt()).isZero();
            assertThat(job.has("worker")).isFalse();
            assertThat(job.path("artifacts").toString()).contains("sm_90");
            assertThat(Files.readString(Path.of(job.path("logPath").asText()))).contains("restored from the cache")
                    .contains("-DCMAKE_CUDA_ARCHITECTURES=90");
        }
        assertThat(Files.readAllBytes(lib)).isEqualTo(built);
        assertThat(quickstart.resolve("build/vector_add/vector_add_check")).isExecutable();
        assertThat(warm.stdout()).contains("cache: 2 restored").contains("hit rate 100 %");

        Archpool.Run other = new Archpool().in(quickstart).run("build", manifest.toString(), "--platform", "cuda",
                "--arch", "80", "-j2", "--cache", cache.toString());
        assertThat(other.exitCode()).as(other.toString()).isZero();
        assertThat(statuses(report(manifest))).containsExactly("stored", "stored");
        assertThat(Files.readString(lib.getParent().resolve("CMakeCache.txt"))).contains("CMAKE_CUDA_ARCHITECTURES:");

        Archpool.Run verify = new Archpool().run("cache", "verify", "--cache", cache.toString());
        assertThat(verify.exitCode()).as(verify.toString()).isZero();
        assertThat(verify.stdout()).contains("4 entries").contains("no problem");
    }

    /**
     * A header of an {@code include_directories} folder outside the project is not in the key, but the entry
     * records it with what the build read of it; once it changed, the entry is not used and the job is built again,
     * here failing as it does without a cache. The header is included by the host pass only
     * ({@code #ifndef __CUDA_ARCH__}), which a key taken from the device pass's preprocessed output would miss.
     * With either generator: Ninja's records (its deps log and build.ninja) and those of Unix Makefiles (the
     * compilers' depfiles, Makefile.cmake and build.make).
     */
    @ParameterizedTest
    @ValueSource(strings = {"Ninja", "Unix Makefiles"})
    void aHeaderOutsideTheSourceFolderThatChangedIsAMissAndTheJobIsBuiltAgain(String generator) throws Exception {
        Path outside = Files.createDirectories(dir.resolve("outside")).resolve("outside.h");
        Files.writeString(outside, "#define OUTSIDE 1\n");
        Path project = Files.createDirectories(dir.resolve("p/kernels"));
        Files.writeString(project.resolve("CMakeLists.txt"), "cmake_minimum_required(VERSION 3.18)\n"
                + "project(reads LANGUAGES CUDA)\ninclude_directories(" + outside.getParent() + ")\n"
                + "add_library(reads SHARED kernels.cu)\n");
        Files.writeString(project.resolve("kernels.cu"), "#ifndef __CUDA_ARCH__\n#include \"outside.h\"\n"
                + "static_assert(OUTSIDE == 1, \"outside.h no longer says 1\");\n#endif\n" + kernel("k"));
        Path manifest = Archpool.manifest(dir.resolve("p"),
                "{\"version\": 1, \"jobs\": [{\"id\": \"reads\", \"kind\": \"cmake\", \"sourceDir\": \"kernels\","
                        + " \"generator\": \"" + generator + "\"}]}");
        Path cache = dir.resolve("cache");

        Archpool.Run cold = build(manifest, cache);
        assertThat(cold.exitCode()).as(cold.toString()).isZero();
        JsonNode first = report(manifest);
        assertThat(statuses(first)).containsExactly("stored");
        assertThat(first.path("jobs").get(0).path("cacheMissReason").asText()).isEqualTo("no-entry");
        assertThat(cold.stdout()).contains("; built because: 1 no entry");

        Files.writeString(outside, "#define OUTSIDE 2\n");
        Archpool.deleteTree(dir.resolve("p/build"));
        Archpool.Run changed = build(manifest, cache);

        assertThat(changed.exitCode()).as(changed.toString()).isNotZero();
        JsonNode job = report(manifest).path("jobs").get(0);
        assertThat(job.path("outcome").asText()).as(job.toString()).isEqualTo("failed");
        assertThat(job.path("cache").asText()).as(job.toString()).isEqualTo("miss");
        assertThat(job.path("cacheNote").asText()).contains(outside + " changed");
        assertThat(job.path("cacheMissReason").asText()).as(job.toString()).isEqualTo("read-set-changed");
        JsonNode reasons = report(manifest).path("cache").path("missReasons");
        assertThat(reasons.path("read-set-changed").asInt()).isEqualTo(1);
        assertThat(reasons.path("no-entry").asInt()).isZero();
        assertThat(changed.stdout()).contains("cache: 0 restored").contains("; built because: 1 read set changed");
    }

    @Test
    void twoBuildsShareOneCacheAtOnce() throws Exception {
        Path cache = dir.resolve("cache");
        Path a = nvccJobs(dir.resolve("a"), 3);
        Path b = nvccJobs(dir.resolve("b"), 3);
        CompletableFuture<Archpool.Run> first = CompletableFuture.supplyAsync(() -> quietly(a, cache));
        CompletableFuture<Archpool.Run> second = CompletableFuture.supplyAsync(() -> quietly(b, cache));
        for (Archpool.Run run : List.of(first.get(), second.get())) {
            assertThat(run.exitCode()).as(run.toString()).isZero();
        }
        assertThat(statuses(report(a))).containsOnly("stored");
        assertThat(statuses(report(b))).containsOnly("stored");
        first = CompletableFuture.supplyAsync(() -> quietly(a, cache));
        second = CompletableFuture.supplyAsync(() -> quietly(b, cache));
        assertThat(first.get().exitCode()).isZero();
        assertThat(second.get().exitCode()).isZero();
        assertThat(statuses(report(a))).containsOnly("hit");
        assertThat(statuses(report(b))).containsOnly("hit");
        Archpool.Run verify = new Archpool().run("cache", "verify", "--cache", cache.toString());
        assertThat(verify.exitCode()).as(verify.toString()).isZero();

        Archpool.Run stats = new Archpool().run("cache", "stats", "--cache", cache.toString());
        // 6 entries; the two folders' kernels are the same source, so their 3 fat binaries are one blob each, and
        // 6 logs
        assertThat(stats.stdout()).as(stats.toString()).contains("entries:   6").contains("blobs:     9");
        Archpool.Run prune = new Archpool().run("cache", "prune", "--max-size", "0", "--cache", cache.toString());
        assertThat(prune.exitCode()).as(prune.toString()).isZero();
        assertThat(prune.stdout()).contains("removed 6 entries, 9 blobs");
        Archpool.Run bad = new Archpool().run("cache", "prune", "--max-size", "lots", "--cache", cache.toString());
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.stderr()).contains("--max-size lots is not valid").doesNotContain("Exception");
        // --cache-max-size prunes after the build, which has stored its jobs by then
        Archpool.Run capped = build(a, cache, "--cache-max-size", "0");
        assertThat(capped.exitCode()).as(capped.toString()).isZero();
        assertThat(statuses(report(a))).containsOnly("stored");
        assertThat(new Archpool().run("cache", "stats", "--cache", cache.toString()).stdout())
                .contains("entries:   0").contains("blobs:     0");
    }

    private static Archpool.Run quietly(Path manifest, Path cache) {
        try {
            return build(manifest, cache);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aCoordinatorKilledWhileStoringLeavesNoEntryThatIsUsedHalfWritten() throws Exception {
        Path cache = dir.resolve("cache");
        Path folder = Files.createDirectories(dir.resolve("big"));
        Files.writeString(folder.resolve("seed"), "1");
        Path manifest = Archpool.manifest(folder, "{\"version\": 1, \"jobs\": [{\"id\": \"big\", \"kind\": \"command\","
                + " \"argv\": [\"sh\", \"-c\", \"head -c 200000000 /dev/urandom > big.bin\"], \"inputs\": [\"seed\"],"
                + " \"artifacts\": [\"big.bin\"]}]}");
        // the kill must land while the 200 MB blob is being copied and hashed; a coordinator that finished first
        // (a loaded machine can starve this thread for that long) proves nothing, so its cache is dropped and the
        // build tried again
        List<String> missed = new ArrayList<>();
        while (!killedWhileStoring(manifest, folder, cache, missed)) {
            assertThat(missed).as("the coordinator was never seen storing:%n%s", String.join("\n", missed))
                    .hasSizeLessThan(3);
            Archpool.deleteTree(cache);
            Files.deleteIfExists(folder.resolve("big.bin"));
        }

        Archpool.Run again = new Archpool().in(folder).run("build", manifest.toString(), "--platform", "cuda",
                "--arch", "90", "--no-toolchain-check", "--cache", cache.toString());
        assertThat(again.exitCode()).as(again.toString()).isZero();
        assertThat(statuses(report(manifest))).containsExactly("stored");
        Archpool.Run verify = new Archpool().run("cache", "verify", "--cache", cache.toString());
        assertThat(verify.exitCode()).as(verify.toString()).isZero();
        Files.delete(folder.resolve("big.bin"));
        Archpool.Run hit = new Archpool().in(folder).run("build", manifest.toString(), "--platform", "cuda",
                "--arch", "90", "--no-toolchain-check", "--cache", cache.toString());
        assertThat(statuses(report(manifest))).as(hit.toString()).containsExactly("hit");
        assertThat(folder.resolve("big.bin")).hasSize(200_000_000);
    }

    /** Starts a build and kills it once it is seen storing; says whether it was, and if not, why, in missed. */
    private boolean killedWhileStoring(Path manifest, Path folder, Path cache, List<String> missed) throws Exception {
        Path out = dir.resolve("killed.out");
        Process p = Archpool.process(List.of(Archpool.home().resolve("bin/archpool").toString(), "build",
                manifest.toString(), "--platform", "cuda", "--arch", "90", "--no-toolchain-check", "--cache",
                cache.toString())).directory(folder.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile()).start();
        Path tmp = cache.resolve("tmp");
        Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
        while (!storing(tmp) && p.isAlive() && Instant.now().isBefore(deadline)) {
            Thread.onSpinWait();
        }
        boolean seen = storing(tmp) && p.isAlive();
        p.destroyForcibly();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        if (!seen) {
            missed.add("it exited with " + p.exitValue() + " and said:\n" + readQuietly(out));
        }
        return seen;
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(" + e + ")";
        }
    }

    private static boolean storing(Path tmp) {
        try (Stream<Path> files = Files.list(tmp)) {
            return files.findAny().isPresent();
        } catch (Exception e) {
            return false;
        }
    }

    @Test
    void aFlippedByteAndAHandMadeEntryOfAnotherArchitectureAreRejectedAndRebuilt() throws Exception {
        Path cache = dir.resolve("cache");
        Path manifest = nvccJobs(dir.resolve("p"), 1);
        assertThat(build(manifest, cache).exitCode()).isZero();
        JsonNode job = report(manifest).path("jobs").get(0);
        String key = job.path("cacheKey").asText();
        Path entry = cache.resolve("ac").resolve(key.substring(0, 2)).resolve(key);
        JsonNode stored = Archpool.json(entry);
        String blob = stored.path("artifacts").get(0).path("sha256").asText();
        Path blobFile = cache.resolve("cas").resolve(blob.substring(0, 2)).resolve(blob);
        byte[] bytes = Files.readAllBytes(blobFile);
        bytes[bytes.length - 20] ^= 0x40;
        Files.write(blobFile, bytes);

        Archpool.Run flipped = build(manifest, cache);

        assertThat(flipped.exitCode()).as(flipped.toString()).isZero();
        JsonNode rebuilt = report(manifest).path("jobs").get(0);
        assertThat(rebuilt.path("cache").asText()).isEqualTo("rejected");
        assertThat(rebuilt.path("cacheNote").asText()).contains("does not match its digest");
        assertThat(rebuilt.path("artifacts").toString()).contains("sm_90");

        // an entry whose blob is a real sm_80 binary, recorded as such, under this sm_90 key: even with --verify off
        Path k80 = dir.resolve("p/k80.fatbin");
        Process nvcc = new ProcessBuilder("nvcc", "-fatbin", "-gencode", "arch=compute_80,code=sm_80", "-o",
                k80.toString(), "k0.cu").directory(dir.resolve("p").toFile()).inheritIO().start();
        assertThat(nvcc.waitFor()).isZero();
        String sha80 = sha256(k80);
        Path blob80 = Files.createDirectories(cache.resolve("cas").resolve(sha80.substring(0, 2))).resolve(sha80);
        Files.copy(k80, blob80);
        ObjectNode forged = (ObjectNode) Archpool.json(entry);
        ObjectNode artifact = (ObjectNode) forged.path("artifacts").get(0);
        artifact.put("sha256", sha80).put("size", Files.size(k80));
        artifact.putArray("archs").add("sm_80");
        Files.writeString(entry, forged.toString());
        Files.delete(dir.resolve("p/k0.fatbin"));

        Archpool.Run handMade = build(manifest, cache, "--verify", "off");

        assertThat(handMade.exitCode()).as(handMade.toString()).isZero();
        JsonNode again = report(manifest).path("jobs").get(0);
        assertThat(again.path("cache").asText()).isEqualTo("rejected");
        assertThat(again.path("cacheNote").asText()).contains("strict verification").contains("sm_90");
        assertThat(again.path("artifacts").toString()).contains("sm_90").doesNotContain("sm_80");
        assertThat(handMade.stderr()).doesNotContain("Exception");
    }

    private static String sha256(Path file) throws Exception {
        return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(Files.readAllBytes(file)));
    }

    @Test
    void aReadOnlyCacheIsStillReadAndAFullOneCostsNoOutcome() throws Exception {
        Path cache = Files.createDirectories(dir.resolve("cache"));
        Path manifest = nvccJobs(dir.resolve("p"), 2);
        try (Tmpfs tmpfs = Tmpfs.mount(cache, "size=8m,mode=0700")) {
            assertThat(build(manifest, cache).exitCode()).isZero();
            tmpfs.remountReadOnly();
            Files.delete(dir.resolve("p/k0.fatbin"));
            Files.writeString(dir.resolve("p/k1.cu"), kernel("k1_edited"));

            Archpool.Run readOnly = build(manifest, cache);

            assertThat(readOnly.exitCode()).as(readOnly.toString()).isZero();
            assertThat(statuses(report(manifest))).containsExactly("hit", "miss");
            assertThat(dir.resolve("p/k0.fatbin")).exists();
            assertThat(readOnly.stderr()).containsOnlyOnce("cannot be written");
        }
        Path full = Files.createDirectories(dir.resolve("full"));
        Path big = Files.createDirectories(dir.resolve("bigjob"));
        Files.writeString(big.resolve("seed"), "1");
        Path bigManifest = Archpool.manifest(big, "{\"version\": 1, \"jobs\": [{\"id\": \"big\", \"kind\": \"command\","
                + " \"argv\": [\"sh\", \"-c\", \"head -c 2000000 /dev/urandom > big.bin\"], \"inputs\": [\"seed\"],"
                + " \"artifacts\": [\"big.bin\"]}, {\"id\": \"big2\", \"kind\": \"command\","
                + " \"argv\": [\"sh\", \"-c\", \"head -c 2000000 /dev/urandom > big2.bin\"], \"inputs\": [\"seed\"],"
                + " \"artifacts\": [\"big2.bin\"]}]}");
        try (Tmpfs tmpfs = Tmpfs.mount(full, "size=1m,mode=0700")) {
            Archpool.Run run = new Archpool().in(big).run("build", bigManifest.toString(), "--platform", "cuda",
                    "--arch", "90", "--no-toolchain-check", "--cache", full.toString());
            assertThat(run.exitCode()).as(run.toString()).isZero();
            JsonNode r = report(bigManifest);
            assertThat(statuses(r)).containsExactly("miss", "miss");
            assertThat(r.path("outcomes").path("succeeded").asInt()).isEqualTo(2);
            assertThat(run.stderr()).containsOnlyOnce("cannot be written").doesNotContain("Exception");
            try (Stream<Path> tmp = Files.list(full.resolve("tmp"))) {
                assertThat(tmp).as("no temporary file is left behind").isEmpty();
            }
        }
    }

    @Test
    void aCacheFolderOfAnotherUserOrContradictoryFlagsAreRefusedBeforeAnythingRuns() throws Exception {
        Path manifest = nvccJobs(dir.resolve("p"), 1);
        Path theirs = Files.createDirectories(dir.resolve("theirs"));
        UserPrincipal nobody = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        Files.setOwner(theirs, nobody);

        Archpool.Run run = build(manifest, theirs);

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.stderr()).contains("belongs to user id").contains("--cache").doesNotContain("Exception")
                .doesNotContain("\tat ");
        assertThat(dir.resolve("p/k0.fatbin")).doesNotExist();

        Archpool.Run both = new Archpool().in(dir.resolve("p")).run("build", manifest.toString(), "--arch", "90",
                "--platform", "cuda", "--no-cache", "--cache", theirs.toString());
        assertThat(both.exitCode()).isEqualTo(2);
        assertThat(both.stderr()).contains("--no-cache turns the build cache off");
    }

    /**
     * A header that appears, after the build, in an include folder searched before the one that gave the header the
     * build read: no file the build read changed, yet the compile would now take the new one (ccache's direct mode
     * hands back the old object here). A miss, and the job built again.
     */
    @Test
    void aNewHeaderInAnEarlierIncludeFolderIsAMissAndTheJobIsBuiltAgain() throws Exception {
        Path first = Files.createDirectories(dir.resolve("first"));
        Path second = Files.createDirectories(dir.resolve("second"));
        Files.writeString(second.resolve("outside.h"), "#define OUTSIDE 1\n");
        Path project = Files.createDirectories(dir.resolve("p/kernels"));
        Files.writeString(project.resolve("CMakeLists.txt"), "cmake_minimum_required(VERSION 3.18)\n"
                + "project(shadow LANGUAGES CUDA)\ninclude_directories(" + first + " " + second + ")\n"
                + "add_library(shadow SHARED kernels.cu)\n");
        Files.writeString(project.resolve("kernels.cu"), "#include \"outside.h\"\n"
                + "static_assert(OUTSIDE == 1, \"another outside.h came first\");\n" + kernel("k"));
        Path manifest = Archpool.manifest(dir.resolve("p"),
                "{\"version\": 1, \"jobs\": [{\"id\": \"shadow\", \"kind\": \"cmake\", \"sourceDir\": \"kernels\"}]}");
        Path cache = dir.resolve("cache");

        Archpool.Run cold = build(manifest, cache);
        assertThat(cold.exitCode()).as(cold.toString()).isZero();
        assertThat(statuses(report(manifest))).containsExactly("stored");

        Files.writeString(first.resolve("outside.h"), "#define OUTSIDE 2\n");
        Archpool.deleteTree(dir.resolve("p/build"));
        Archpool.Run shadowed = build(manifest, cache);

        assertThat(shadowed.exitCode()).as(shadowed.toString()).isNotZero();
        JsonNode job = report(manifest).path("jobs").get(0);
        assertThat(job.path("outcome").asText()).as(job.toString()).isEqualTo("failed");
        assertThat(job.path("cache").asText()).as(job.toString()).isEqualTo("miss");
        assertThat(job.path("cacheNote").asText()).contains("a new file " + first.resolve("outside.h")
                + " may take the place of the header outside.h");
    }
}
