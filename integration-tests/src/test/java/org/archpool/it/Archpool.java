package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Runs the real distribution ({@code bin/archpool}) as a user would, in its own process. */
final class Archpool {

    /** What one run printed and how it exited. */
    record Run(int exitCode, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + stdout + "\n--- stderr\n" + stderr;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final StackWalker STACK = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private final Map<String, String> env = environment();
    private Path workingDir = Path.of(".").toAbsolutePath();
    private List<String> prefix = List.of();

    static Path home() {
        Path home = Path.of(System.getProperty("archpool.home", "../orchestrator/target/archpool")).toAbsolutePath().normalize();
        assertThat(home.resolve("bin/archpool")).as("the distribution, built by 'mvn package'").isExecutable();
        return home;
    }

    /**
     * The environment of a process an integration test starts: this JVM's, with {@code ARCHPOOL_CACHE_DIR} naming
     * the build cache folder of the calling integration class (under {@code archpool.test.caches}), so that no two
     * classes, which run side by side, share a cache, and none depends on what another stored. The class is found
     * on the stack: the first frame of a class of this package whose name ends in {@code IT} (a lambda or a nested
     * class counts as its enclosing class).
     */
    static Map<String, String> environment() {
        Map<String, String> environment = new HashMap<>(System.getenv());
        environment.put("ARCHPOOL_CACHE_DIR", cacheFolder().toString());
        return environment;
    }

    /** A process of {@code command} with the {@link #environment()} of an integration test. */
    static ProcessBuilder process(List<String> command) {
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().clear();
        builder.environment().putAll(environment());
        return builder;
    }

    /** The build cache folder of the calling integration class. */
    static Path cacheFolder() {
        Class<?> test = STACK.walk(frames -> frames.map(frame -> frame.getDeclaringClass().getNestHost())
                        .filter(c -> c.getPackageName().equals(Archpool.class.getPackageName())
                                && c.getSimpleName().endsWith("IT"))
                        .findFirst())
                .orElseThrow(() -> new IllegalStateException("a process of an integration test must be started"
                        + " from its class (or a lambda or nested class of it), which names its build cache folder"));
        return Path.of(System.getProperty("archpool.test.caches", "target/test-caches")).toAbsolutePath()
                .resolve(test.getSimpleName());
    }

    static Path repo() {
        return Path.of(System.getProperty("archpool.repo", "..")).toAbsolutePath().normalize();
    }

    Archpool env(String name, String value) {
        env.put(name, value);
        return this;
    }

    Archpool in(Path dir) {
        this.workingDir = dir;
        return this;
    }

    /** Runs archpool as the last arguments of {@code prefix} (another user, a namespace of the test's own). */
    Archpool under(List<String> prefix) {
        this.prefix = List.copyOf(prefix);
        return this;
    }

    Run run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(prefix);
        command.add(home().resolve("bin/archpool").toString());
        command.addAll(List.of(args));
        Path out = Files.createTempFile("archpool-it", ".out");
        Path err = Files.createTempFile("archpool-it", ".err");
        try {
            ProcessBuilder pb = new ProcessBuilder(command).directory(workingDir.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectOutput(out.toFile()).redirectError(err.toFile());
            pb.environment().clear();
            pb.environment().putAll(env);
            Process p = pb.start();
            if (!p.waitFor(5, TimeUnit.MINUTES)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                throw new AssertionError("archpool " + String.join(" ", args) + " did not finish in 5 minutes");
            }
            return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    static JsonNode json(Path file) throws IOException {
        return JSON.readTree(file.toFile());
    }

    /** Copies a folder of the repository (sources only, no build output) into {@code target}. */
    static Path copyTree(Path source, Path target) throws IOException {
        try (Stream<Path> files = Files.walk(source)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path rel = source.relativize(f);
                String first = rel.getNameCount() == 0 ? "" : rel.getName(0).toString();
                if (first.equals("build") || first.equals(".archpool") || first.equals("__pycache__")) {
                    continue;
                }
                Path to = target.resolve(rel.toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(f, to);
                }
            }
        }
        return target;
    }

    /** Removes a folder and everything in it (links are removed, not followed). */
    static void deleteTree(Path folder) throws IOException {
        if (!Files.exists(folder, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> files = Files.walk(folder)) {
            for (Path f : (Iterable<Path>) files.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.delete(f);
            }
        }
    }

    /** Writes a manifest as JSON text. */
    static Path manifest(Path dir, String json) throws IOException {
        Path file = dir.resolve("archpool.json");
        Files.writeString(file, json);
        return file;
    }
}
