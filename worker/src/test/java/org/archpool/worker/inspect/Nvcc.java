package org.archpool.worker.inspect;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.archpool.testing.RequiredTool;

/**
 * Test helper that compiles tiny CUDA sources with the real nvcc, so tests can read what nvcc really emits.
 *
 * <p>nvcc is looked up in {@code $NVCC} (a path to the executable), then {@code $CUDA_HOME/bin},
 * {@code $CUDA_PATH/bin}, then {@code PATH}. When it is missing, {@link #require()} skips the calling test, or
 * fails it on CI; see {@link RequiredTool}. No GPU is needed: nvcc compiles for any architecture.
 */
final class Nvcc {

    /** A kernel and a host function that launches it. */
    static final String KERNEL_SOURCE = """
            __global__ void scale(float *x, float factor) { x[threadIdx.x] *= factor; }
            void launch_scale(float *x) { scale<<<1, 32>>>(x, 2.0f); }
            """;

    /** A second kernel, for a library of two translation units. */
    static final String SECOND_KERNEL_SOURCE = """
            __global__ void bump(int *x) { x[threadIdx.x] += 1; }
            void launch_bump(int *x) { bump<<<1, 32>>>(x); }
            """;

    /** A complete program. */
    static final String PROGRAM_SOURCE = """
            __global__ void scale(float *x) { x[threadIdx.x] *= 2.0f; }
            int main() { scale<<<1, 32>>>(nullptr); return 0; }
            """;

    private static final Pattern RELEASE = Pattern.compile("release (\\d+)\\.(\\d+)");
    private static final long TIMEOUT_MINUTES = 5;
    private static Nvcc instance;

    private final Path executable;
    private final int major;
    private final int minor;

    private Nvcc(Path executable, int major, int minor) {
        this.executable = executable;
        this.major = major;
        this.minor = minor;
    }

    /**
     * @return the nvcc to use; skips the calling test when there is none, or fails it when {@code CI=true}
     */
    static Nvcc require() throws IOException, InterruptedException {
        Map<String, String> env = System.getenv();
        Optional<Nvcc> found = find();
        RequiredTool.require(found.map(Nvcc::executable), "nvcc",
                "install the CUDA toolkit and put nvcc on PATH, or set NVCC or CUDA_HOME", env);
        return found.orElseThrow();
    }

    /**
     * Looks nvcc up without applying the skip-or-fail rule, for set-up code that should do nothing without it.
     *
     * @return the nvcc to use, or empty
     */
    static synchronized Optional<Nvcc> find() throws IOException, InterruptedException {
        if (instance == null) {
            Optional<Path> path = locate(System.getenv());
            if (path.isEmpty()) {
                return Optional.empty();
            }
            String version = run(path.get(), path.get().getParent(), List.of("--version"), null);
            Matcher m = RELEASE.matcher(version);
            if (!m.find()) {
                fail("cannot tell the CUDA release from `" + path.get() + " --version`:\n" + version);
            }
            instance = new Nvcc(path.get(), Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
        }
        return Optional.of(instance);
    }

    /** @return the nvcc executable */
    Path executable() {
        return executable;
    }

    private static Optional<Path> locate(Map<String, String> env) {
        String explicit = env.get("NVCC");
        if (explicit != null && !explicit.isEmpty()) {
            Path p = Path.of(explicit);
            return Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
        }
        for (String home : new String[] {env.get("CUDA_HOME"), env.get("CUDA_PATH")}) {
            Optional<Path> found = RequiredTool.executable(home == null ? null : home + "/bin", "nvcc");
            if (found.isPresent()) {
                return found;
            }
        }
        return RequiredTool.findOnPath("nvcc", env);
    }

    /** @return the CUDA release's major number, e.g. 13 */
    int major() {
        return major;
    }

    /** @return whether this nvcc is at least the given release */
    boolean atLeast(int wantMajor, int wantMinor) {
        return major > wantMajor || (major == wantMajor && minor >= wantMinor);
    }

    /** @return e.g. "13.0" */
    String release() {
        return major + "." + minor;
    }

    /**
     * Writes {@code source} to {@code dir/fileName} and compiles it.
     *
     * @param dir      the working directory, e.g. a {@code @TempDir}
     * @param fileName the source file's name, e.g. {@code k.cu}
     * @param source   the source text
     * @param output   the output file's name
     * @param args     nvcc options, e.g. {@code -shared}, {@code -Xcompiler -fPIC}, {@code -gencode=...}
     * @return the output file
     */
    Path compile(Path dir, String fileName, String source, String output, String... args)
            throws IOException, InterruptedException {
        Files.writeString(dir.resolve(fileName), source, StandardCharsets.UTF_8);
        List<String> all = new ArrayList<>(List.of(args));
        all.add(fileName);
        return link(dir, output, all.toArray(String[]::new));
    }

    /**
     * Runs nvcc in {@code dir} with the given arguments plus {@code -o output}.
     *
     * @return the output file
     */
    Path link(Path dir, String output, String... args) throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("-o");
        all.add(output);
        run(executable, dir, all, dir.resolve(output + ".log"));
        Path out = dir.resolve(output);
        if (!Files.isRegularFile(out)) {
            fail("nvcc " + all + " reported success but wrote no " + output);
        }
        return out;
    }

    /** @return the real architectures this nvcc can build, from {@code nvcc --list-gpu-code}: sm_75, sm_80, … */
    List<String> listGpuCode() throws IOException, InterruptedException {
        return List.of(run(executable, executable.getParent(), List.of("--list-gpu-code"), null).trim().split("\\s+"));
    }

    /** A shared library from {@link #KERNEL_SOURCE} built with the given architecture options. */
    Path sharedLibrary(Path dir, String... archArgs) throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(List.of("-shared", "-Xcompiler", "-fPIC"));
        all.addAll(List.of(archArgs));
        return compile(dir, "k.cu", KERNEL_SOURCE, "libk.so", all.toArray(String[]::new));
    }

    private static String run(Path nvcc, Path dir, List<String> args, Path log)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(nvcc.toString());
        command.addAll(args);
        Path output = log != null ? log : Files.createTempFile("nvcc", ".log");
        try {
            Process process = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            if (!process.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                fail("timed out after " + TIMEOUT_MINUTES + " minutes: " + command);
            }
            String text = new String(Files.readAllBytes(output), StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                fail("exit code " + process.exitValue() + " from " + command + ":\n" + text);
            }
            return text;
        } finally {
            if (log == null) {
                Files.deleteIfExists(output);
            }
        }
    }
}
