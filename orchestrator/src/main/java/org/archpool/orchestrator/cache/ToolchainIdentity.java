package org.archpool.orchestrator.cache;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.archpool.orchestrator.tool.ToolOutput;
import org.archpool.orchestrator.tool.ToolRunner;
import org.archpool.protocol.Platform;
import org.archpool.worker.exec.Executables;

/**
 * Which toolchain builds the jobs, as one digest for their keys: for each tool of the platform found on the
 * {@code PATH} jobs get (CUDA: nvcc, ptxas, fatbinary, nvlink, the host gcc and g++; HIP: hipcc, clang, clang++,
 * ld.lld, clang-offload-bundler; both: cmake, ninja) the file it resolves to, a hash of its bytes and what its
 * {@code --version} says; for HIP also every device-library bitcode file ({@code *.bc}) in the folders a HIP
 * compiler reads them from; and the environment variables that change what a compiler finds or does
 * ({@link #VARIABLES}). A tool that is not there enters as absent, so installing it changes the key. Computed once
 * per build or {@code serve}, in the coordinator: workers run on the same file system.
 */
public record ToolchainIdentity(String sha256, List<String> lines) {

    /** Environment variables that enter every key: where tools, headers and libraries are found, and flags. */
    public static final List<String> VARIABLES = List.of("PATH", "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH",
            "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "CC", "CXX", "CUDACXX", "HIPCXX", "CFLAGS", "CXXFLAGS",
            "CUDAFLAGS", "HIPFLAGS", "LDFLAGS", "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN", "CUDA_HOME",
            "CUDA_PATH", "ROCM_PATH", "HIP_PATH", "HIP_CLANG_PATH", "HIP_DEVICE_LIB_PATH", "DEVICE_LIB_PATH",
            "HIP_PLATFORM", "CMAKE_PREFIX_PATH", "CMAKE_GENERATOR", "CMAKE_TOOLCHAIN_FILE", "SOURCE_DATE_EPOCH");

    static final List<String> CUDA_TOOLS = List.of("nvcc", "ptxas", "fatbinary", "nvlink", "gcc", "g++");
    static final List<String> HIP_TOOLS = List.of("hipcc", "clang", "clang++", "ld.lld", "clang-offload-bundler");
    static final List<String> BUILD_TOOLS = List.of("cmake", "ninja");

    private static final Duration VERSION_TIMEOUT = Duration.ofSeconds(20);

    public ToolchainIdentity {
        lines = List.copyOf(lines);
    }

    /**
     * @param environment the environment jobs inherit (the coordinator's)
     * @param tools       runs {@code --version}
     * @param hashes      hashes each tool's file (remembered across builds)
     */
    public static ToolchainIdentity of(Platform platform, Map<String, String> environment, ToolRunner tools,
                                       FileHashes hashes) {
        return of(platform, environment, tools, hashes, new ToolVersions(null));
    }

    /** @param versions what each tool's {@code --version} said, by the digest of its file (run when unknown) */
    static ToolchainIdentity of(Platform platform, Map<String, String> environment, ToolRunner tools,
                                FileHashes hashes, ToolVersions versions) {
        List<String> lines = new ArrayList<>();
        String path = environment.get("PATH");
        List<String> names = new ArrayList<>(platform == Platform.CUDA ? CUDA_TOOLS : HIP_TOOLS);
        names.addAll(BUILD_TOOLS);
        for (String name : names) {
            lines.add("tool " + name + " " + tool(name, path, tools, hashes, versions));
        }
        if (platform == Platform.HIP) {
            for (Path folder : deviceLibraryFolders(environment)) {
                lines.addAll(bitcode(folder, hashes));
            }
        }
        for (String variable : VARIABLES) {
            String value = environment.get(variable);
            lines.add("env " + variable + (value == null ? " unset" : "=" + value));
        }
        MessageDigest md = Digests.sha256();
        lines.forEach(l -> md.update((l + "\n").getBytes(StandardCharsets.UTF_8)));
        return new ToolchainIdentity(Digests.hex(md.digest()), lines);
    }

    /** The digest of the program a job's {@code argv[0]} runs, for command jobs (it may be no tool listed here). */
    public static String program(String argv0, String path, FileHashes hashes) {
        Optional<Path> found = Executables.find(argv0, path);
        if (found.isEmpty()) {
            return "absent";
        }
        try {
            Path real = found.get().toRealPath();
            return real + " sha256:" + hashes.digest(real);
        } catch (IOException e) {
            return "unreadable: " + e.getMessage();
        }
    }

    private static String tool(String name, String path, ToolRunner tools, FileHashes hashes,
                               ToolVersions versions) {
        Optional<Path> found = Executables.find(name, path);
        if (found.isEmpty()) {
            return "absent";
        }
        String file = program(name, path, hashes);
        int digest = file.indexOf(" sha256:");
        String text = versions.of(digest < 0 ? "unreadable" : file.substring(digest + 8), () -> {
            ToolOutput version = tools.run(List.of(found.get().toString(), "--version"), VERSION_TIMEOUT);
            return version.status() == ToolOutput.Status.EXITED
                    ? (version.stdout() + version.stderr()).strip().replace('\n', ' ')
                    : "version unknown: " + version.status();
        });
        return file + " version: " + text;
    }

    /** Where HIP compilers read the device libraries: the variables that name them, then the usual places. */
    static List<Path> deviceLibraryFolders(Map<String, String> environment) {
        Set<Path> folders = new LinkedHashSet<>();
        for (String variable : List.of("HIP_DEVICE_LIB_PATH", "DEVICE_LIB_PATH")) {
            String value = environment.get(variable);
            if (value != null && !value.isBlank()) {
                folders.add(Path.of(value));
            }
        }
        for (String variable : List.of("ROCM_PATH", "HIP_PATH")) {
            String value = environment.get(variable);
            if (value != null && !value.isBlank()) {
                folders.add(Path.of(value, "amdgcn", "bitcode"));
            }
        }
        folders.add(Path.of("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"));
        folders.add(Path.of("/opt/rocm/amdgcn/bitcode"));
        folders.add(Path.of("/opt/rocm/lib/llvm/lib/clang"));
        return folders.stream().filter(Files::isDirectory).toList();
    }

    private static List<String> bitcode(Path folder, FileHashes hashes) {
        TreeMap<String, String> files = new TreeMap<>();
        try (var walk = Files.walk(folder, 6)) {
            for (Path file : (Iterable<Path>) walk::iterator) {
                if (file.getFileName().toString().endsWith(".bc") && Files.isRegularFile(file)) {
                    files.put(file.toString(), hashes.digest(file));
                }
            }
        } catch (IOException | RuntimeException e) {
            return List.of("device-libs " + folder + " unreadable: " + e.getMessage());
        }
        List<String> lines = new ArrayList<>();
        files.forEach((file, digest) -> lines.add("device-lib " + file + " sha256:" + digest));
        return lines;
    }
}
