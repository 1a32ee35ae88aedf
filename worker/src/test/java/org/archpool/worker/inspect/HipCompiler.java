package org.archpool.worker.inspect;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.archpool.testing.RequiredTool;

/**
 * Test helper that compiles tiny HIP sources for AMD GPUs with real compilers, so tests read what they really emit.
 * No GPU is needed.
 *
 * <ul>
 *   <li>{@link #hipcc}: Debian's ROCm {@code hipcc} (clang 14 underneath, {@code HIP_PLATFORM=amd}), which knows
 *       gfx90a and older targets, and builds gfx803 when given no {@code --offload-arch};</li>
 *   <li>{@link #clang}: {@code clang++-19} with a folder of Debian's device libraries completed with the ISA
 *       version files of gfx942 and gfx1100, which Debian's ROCm 5.2 lacks (each assembled with
 *       {@code llvm-as-19} from the gfx90a one with the version number changed);</li>
 *   <li>{@link #bundler()} and {@link #readelf()}: {@code clang-offload-bundler-19} and {@code llvm-readelf-19},
 *       the LLVM tools that archpool's readers are cross-checked against.</li>
 * </ul>
 *
 * <p>On Debian: {@code apt-get install hipcc libamdhip64-dev rocm-device-libs clang-19 lld-19 llvm-19
 * clang-tools-19 libclang-rt-19-dev}. Missing tools skip the calling test, or fail it when {@code CI=true}; see
 * {@link RequiredTool}.
 */
final class HipCompiler {

    /** A kernel that needs no hostcall buffer, and a host function that launches it. */
    static final String KERNEL_SOURCE = """
            #include <hip/hip_runtime.h>
            __global__ void scale(float *x, float factor) { x[threadIdx.x] *= factor; }
            void launch_scale(float *x) { hipLaunchKernelGGL(scale, dim3(1), dim3(32), 0, 0, x, 2.0f); }
            """;

    /** Two kernels: {@code hello} calls device printf (so it needs a hostcall buffer), {@code quiet} does not. */
    static final String PRINTF_SOURCE = """
            #include <hip/hip_runtime.h>
            #include <cstdio>
            __global__ void hello(int x) { printf("hello %d\\n", x); }
            __global__ void quiet(float *x) { x[threadIdx.x] = 1.0f; }
            void launch(float *x) {
                hipLaunchKernelGGL(hello, dim3(1), dim3(1), 0, 0, 1);
                hipLaunchKernelGGL(quiet, dim3(1), dim3(32), 0, 0, x);
            }
            """;

    /** A kernel that calls device {@code assert}, which also needs a hostcall buffer. */
    static final String ASSERT_SOURCE = """
            #include <hip/hip_runtime.h>
            #include <cassert>
            __global__ void checked(int *x) { assert(x[threadIdx.x] >= 0); }
            void launch_checked(int *x) { hipLaunchKernelGGL(checked, dim3(1), dim3(32), 0, 0, x); }
            """;

    /** The mangled names of the kernels above. */
    static final String SCALE = "_Z5scalePff";
    static final String HELLO = "_Z5helloi";
    static final String QUIET = "_Z5quietPf";
    static final String CHECKED = "_Z7checkedPi";

    private static final String LLVM_VERSION = "19";
    private static final long TIMEOUT_MINUTES = 5;
    private static final Path DEBIAN_BITCODE = Path.of("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode");
    /** The ISA versions missing from Debian's device libraries, as {@code __oclc_ISA_version} numbers. */
    private static final Map<String, Integer> MISSING_ISA_VERSIONS = Map.of("942", 9402, "1100", 11000);
    private static HipCompiler instance;

    private final Path hipcc;
    private final Path clang;
    private final Path bundler;
    private final Path readelf;
    private final Path deviceLibs;

    private HipCompiler(Path hipcc, Path clang, Path bundler, Path readelf, Path deviceLibs) {
        this.hipcc = hipcc;
        this.clang = clang;
        this.bundler = bundler;
        this.readelf = readelf;
        this.deviceLibs = deviceLibs;
    }

    /** @return the compilers; skips the calling test when one is missing, or fails it when {@code CI=true} */
    static synchronized HipCompiler require() throws IOException, InterruptedException {
        if (instance == null) {
            Map<String, String> env = System.getenv();
            String hint = "apt-get install hipcc libamdhip64-dev rocm-device-libs clang-19 lld-19 llvm-19"
                    + " clang-tools-19 libclang-rt-19-dev";
            Path hipcc = RequiredTool.require(RequiredTool.findOnPath("hipcc", env), "hipcc", hint, env);
            Path clang = RequiredTool.require(llvmTool("clang++", env), "clang++-" + LLVM_VERSION, hint, env);
            Path bundler = RequiredTool.require(llvmTool("clang-offload-bundler", env),
                    "clang-offload-bundler-" + LLVM_VERSION, hint, env);
            Path readelf = RequiredTool.require(llvmTool("llvm-readelf", env), "llvm-readelf-" + LLVM_VERSION,
                    hint, env);
            Path as = RequiredTool.require(llvmTool("llvm-as", env), "llvm-as-" + LLVM_VERSION, hint, env);
            Path dis = RequiredTool.require(llvmTool("llvm-dis", env), "llvm-dis-" + LLVM_VERSION, hint, env);
            Path bitcode = RequiredTool.require(Files.isDirectory(DEBIAN_BITCODE) ? Optional.of(DEBIAN_BITCODE)
                    : Optional.empty(), "ROCm device libraries", hint, env);
            instance = new HipCompiler(hipcc, clang, bundler, readelf, deviceLibs(bitcode, as, dis));
        }
        return instance;
    }

    /** @return {@code clang-offload-bundler-19} */
    Path bundler() {
        return bundler;
    }

    /** @return {@code llvm-readelf-19} */
    Path readelf() {
        return readelf;
    }

    /**
     * Writes {@code source} to {@code dir/k.hip} and runs Debian's hipcc on it with the given options plus
     * {@code -o output}, with {@code HIP_PLATFORM=amd}.
     *
     * @return the output file
     */
    Path hipcc(Path dir, String source, String output, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(hipcc.toString()));
        command.addAll(List.of(args));
        return compile(dir, source, output, command);
    }

    /**
     * Writes {@code source} to {@code dir/k.hip} and compiles it with clang++-19 as HIP for AMD GPUs, with the
     * completed device libraries, the given options (such as {@code --offload-arch=gfx942}, {@code -c},
     * {@code -shared -fPIC}, {@code --offload-compress}) and {@code -o output}.
     *
     * @return the output file
     */
    Path clang(Path dir, String source, String output, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(clang.toString(), "-x", "hip", "--rocm-path=/usr",
                "--rocm-device-lib-path=" + deviceLibs));
        command.addAll(List.of(args));
        return compile(dir, source, output, command);
    }

    /**
     * Runs an LLVM tool (or any command) and returns what it printed.
     *
     * @param dir     the working directory
     * @param command the command and its arguments
     * @return stdout and stderr together
     */
    static String run(Path dir, List<String> command) throws IOException, InterruptedException {
        Path output = Files.createTempFile("hip-tool", ".log");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
                    .redirectErrorStream(true).redirectOutput(output.toFile());
            builder.environment().put("HIP_PLATFORM", "amd");
            Process process = builder.start();
            if (!process.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                fail("timed out after " + TIMEOUT_MINUTES + " minutes: " + command);
            }
            String text = Files.readString(output, StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                fail("exit code " + process.exitValue() + " from " + command + ":\n" + text);
            }
            return text;
        } finally {
            Files.deleteIfExists(output);
        }
    }

    private static Path compile(Path dir, String source, String output, List<String> command)
            throws IOException, InterruptedException {
        Files.writeString(dir.resolve("k.hip"), source, StandardCharsets.UTF_8);
        List<String> all = new ArrayList<>(command);
        all.add("k.hip");
        all.add("-o");
        all.add(output);
        run(dir, all);
        Path out = dir.resolve(output);
        if (!Files.isRegularFile(out)) {
            fail(all + " reported success but wrote no " + output);
        }
        return out;
    }

    private static Optional<Path> llvmTool(String name, Map<String, String> env) {
        Optional<Path> versioned = RequiredTool.findOnPath(name + "-" + LLVM_VERSION, env);
        return versioned.isPresent() ? versioned
                : RequiredTool.executable("/usr/lib/llvm-" + LLVM_VERSION + "/bin", name);
    }

    /** Debian's bitcode files plus ISA version files for the targets Debian's ROCm 5.2 predates. */
    private static Path deviceLibs(Path debian, Path as, Path dis) throws IOException, InterruptedException {
        Path folder = Files.createTempDirectory("archpool-device-libs");
        try (DirectoryStream<Path> files = Files.newDirectoryStream(debian, "*.bc")) {
            for (Path file : files) {
                Files.createSymbolicLink(folder.resolve(file.getFileName()), file);
            }
        }
        String template = run(folder, List.of(dis.toString(), debian.resolve("oclc_isa_version_90a.bc").toString(),
                "-o", "-"));
        if (!template.contains("constant i32 9010,")) {
            fail("unexpected contents of oclc_isa_version_90a.bc:\n" + template);
        }
        Map<String, Integer> versions = new HashMap<>(MISSING_ISA_VERSIONS);
        for (Map.Entry<String, Integer> e : versions.entrySet()) {
            Path bc = folder.resolve("oclc_isa_version_" + e.getKey() + ".bc");
            if (Files.exists(bc)) {
                continue;
            }
            Path ll = folder.resolve("isa_" + e.getKey() + ".ll");
            Files.writeString(ll, template.replace("constant i32 9010,", "constant i32 " + e.getValue() + ","));
            run(folder, List.of(as.toString(), ll.toString(), "-o", bc.toString()));
        }
        folder.toFile().deleteOnExit();
        return folder;
    }
}
