package org.archpool.orchestrator.manifest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.archpool.orchestrator.toolchain.ConcreteJob;
import org.archpool.orchestrator.toolchain.JobPlanner;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Message;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;
import org.archpool.protocol.codec.MessageCodec;
import org.archpool.protocol.fuzz.FuzzRun;
import org.archpool.protocol.fuzz.Mutator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Feeds mutated manifests to {@link ManifestReader}: the only allowed outcomes are a {@link Manifest} that keeps
 * every promise of the reader, or a {@link ManifestException} with a short, one-line message. Anything else
 * (a runtime exception, an error, a Jackson exception, a hang) fails the test and prints the seed and the case
 * so that it can be replayed:
 * {@code mvn -o test -pl protocol -Dtest=ManifestFuzzTest -Darchpool.fuzz.seed=S -Darchpool.fuzz.case=N}
 * ({@code -Darchpool.fuzz.cases=N} runs more cases; see {@link FuzzRun}).
 */
class ManifestFuzzTest {

    static final long SEED = FuzzRun.seed(0x5EED_A4C4_0001L);
    /** A manifest error is one paragraph a person reads: anything longer is a bug (usually an echoed input). */
    static final int MAX_MESSAGE_CHARS = 2048;
    static final String[] SEEDS = {"everything.json", "minimal-command.json", "two-kinds.json"};

    @TempDir
    Path dir;

    private final ManifestReader reader = new ManifestReader();
    private final MessageCodec codec = new MessageCodec();

    @BeforeEach
    void projectLayout() throws IOException {
        Files.createDirectories(dir.resolve("proj"));
        Files.writeString(dir.resolve("proj/CMakeLists.txt"), "project(p LANGUAGES CXX)\n");
        Files.createDirectories(dir.resolve("sub"));
        Files.createDirectories(dir.resolve("empty"));
    }

    static byte[] seed(String name) throws IOException {
        try (InputStream in = ManifestFuzzTest.class.getResourceAsStream("/fuzz-seeds/manifests/" + name)) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        }
    }

    @Test
    void theSeedsAreValidManifests() throws Exception {
        for (String name : SEEDS) {
            Path file = dir.resolve(name);
            Files.write(file, seed(name));
            Manifest m = reader.read(file);
            assertThat(m.jobs()).isNotEmpty();
            checkAccepted(m);
        }
    }

    @Test
    void mutatedManifestsAreReadOrRefusedWithOneShortMessage() throws Exception {
        List<byte[]> seeds = new ArrayList<>();
        for (String name : SEEDS) {
            seeds.add(seed(name));
        }
        Path file = dir.resolve("fuzzed.json");
        int[] accepted = {0};
        int[] refused = {0};
        int ran = FuzzRun.run("mutated manifests", SEED, i -> {
            Mutator mutator = new Mutator(SEED, i);
            byte[] input = mutator.mutate(seeds.get(mutator.random().nextInt(seeds.size())));
            Files.write(file, input);
            String problem;
            try {
                Manifest m = reader.read(file);
                accepted[0]++;
                problem = checkAccepted(m);
            } catch (ManifestException e) {
                refused[0]++;
                problem = checkRefusal(e);
            } catch (Throwable t) {
                problem = "threw " + FuzzRun.stackTop(t);
            }
            return problem == null ? null
                    : "(" + mutator.describe() + "): " + problem + "\n    input: " + Mutator.show(input, 400);
        });
        if (FuzzRun.ONLY_CASE == null) {
            assertThat(ran).isGreaterThanOrEqualTo(1000);
            // both outcomes must be common, or the mutations test nothing
            assertThat(accepted[0]).as("accepted").isGreaterThan(ran / 50);
            assertThat(refused[0]).as("refused").isGreaterThan(ran / 2);
        }
    }

    /** Null when the refusal is one the user can read; otherwise what is wrong with it. */
    static String checkRefusal(ManifestException e) {
        String m = e.getMessage();
        if (m == null || m.isBlank()) {
            return "ManifestException without a message";
        }
        if (m.length() > MAX_MESSAGE_CHARS) {
            return "message of " + m.length() + " chars: " + m.substring(0, 300) + "…";
        }
        if (!m.startsWith("manifest ")) {
            return "message does not name the manifest: " + m;
        }
        if (m.chars().anyMatch(c -> c < 0x20 || c == 0x7f || c == 0x2028 || c == 0x2029)) {
            return "message holds a control character or line break: " + Mutator.show(m.getBytes(), 400);
        }
        if (m.contains("is not valid JSON") && !m.matches("(?s).*at line \\d+, column \\d+.*")) {
            return "JSON syntax error without line and column: " + m;
        }
        if (m.contains("Exception") || m.contains("REDACTED") || m.contains("StreamReadConstraints")) {
            return "message leaks internals: " + m;
        }
        return null;
    }

    /** Null when an accepted manifest keeps the reader's promises and can be sent to a worker. */
    String checkAccepted(Manifest m) {
        List<String> wrong = new ArrayList<>();
        if (m.jobs().isEmpty()) {
            wrong.add("no jobs");
        }
        Set<String> ids = new HashSet<>();
        for (JobSpec job : m.jobs()) {
            String id = job.id();
            if (!JobSpec.isValidId(id) || id.matches("\\.+")) {
                wrong.add("ill-formed id '" + id + "'");
            }
            if (!ids.add(id)) {
                wrong.add("duplicate id '" + id + "'");
            }
            if (job.timeoutMs() != null && job.timeoutMs() <= 0) {
                wrong.add(id + ": timeout " + job.timeoutMs());
            }
            List<String> strings = new ArrayList<>(job.artifacts());
            job.env().forEach((k, v) -> {
                strings.add(k);
                strings.add(v);
                if (k.isBlank() || k.contains("=")) {
                    wrong.add(id + ": env name '" + k + "'");
                }
            });
            if (job instanceof CmakeJob c) {
                Path source = Path.of(c.sourceDir());
                if (!source.isAbsolute() || !Files.isRegularFile(source.resolve("CMakeLists.txt"))) {
                    wrong.add(id + ": sourceDir " + c.sourceDir());
                }
                if (!Path.of(c.buildDir()).isAbsolute()) {
                    wrong.add(id + ": buildDir " + c.buildDir());
                }
                for (String reserved : CmakeJob.RESERVED_DEFINES) {
                    if (c.defines().containsKey(reserved)) {
                        wrong.add(id + ": sets " + reserved);
                    }
                }
                c.defines().forEach((k, v) -> {
                    strings.add(k);
                    strings.add(v);
                });
                strings.addAll(c.configureArgs());
                strings.addAll(c.buildArgs());
                strings.addAll(c.targets());
                strings.add(c.generator());
            } else if (job instanceof CommandJob c) {
                if (c.argv().isEmpty() || c.argv().get(0).isBlank()) {
                    wrong.add(id + ": argv " + c.argv());
                }
                if (!Path.of(c.cwd()).isAbsolute() || !Files.isDirectory(Path.of(c.cwd()))) {
                    wrong.add(id + ": cwd " + c.cwd());
                }
                strings.addAll(c.argv());
            }
            for (String s : strings) {
                if (s != null && !isProcessSafe(s)) {
                    wrong.add(id + ": a NUL or an unpaired surrogate reaches a process: " + Mutator.show(s.getBytes(), 80));
                }
            }
            try {
                Target target = new Target(Platform.CUDA, List.of("90"));
                ConcreteJob concrete = JobPlanner.standard().plan(job, target, 1);
                BuildRequest request = new BuildRequest(id + "#1", concrete.job(), target, concrete.steps(), 0,
                        "/logs/" + id + ".log");
                byte[] line = codec.encode(request);
                Message back = codec.decode(line, line.length);
                if (!back.equals(request)) {
                    wrong.add(id + ": does not survive the wire: " + back);
                }
            } catch (Exception | Error e) {
                wrong.add(id + ": cannot be sent to a worker: " + FuzzRun.stackTop(e));
            }
        }
        return wrong.isEmpty() ? null : "accepted, but " + String.join("; ", wrong);
    }

    /** No NUL (a process cannot take it) and no unpaired surrogate (it would reach the process as '?'). */
    static boolean isProcessSafe(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == 0) {
                return false;
            }
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }
}
