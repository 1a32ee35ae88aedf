package org.archpool.orchestrator.seed;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.archpool.orchestrator.cache.Digests;
import org.archpool.orchestrator.cache.ToolchainIdentity;
import org.archpool.orchestrator.toolchain.ConcreteJob;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Step;
import org.archpool.worker.exec.Executables;

/**
 * Which configures may share a seed: the SHA-256 of what decides what CMake detects about a toolchain. That is the
 * cmake program (its real path, size and modification time), and every argument of the configure line except the
 * source and build folders and the project's own defines ({@code -D} names that neither start with
 * {@code CMAKE_} nor name CUDA, HIP or ROCm): the generator, the architecture define, the build type, compilers
 * and toolchain files given with {@code -D}, any other argument. Then the step's own environment and the
 * coordinator's values of the variables that change what a compiler finds ({@link ToolchainIdentity#VARIABLES}).
 * Two projects with different architecture lists, generators, compilers or cmake programs never share a seed.
 *
 * @param sha256 the key, 64 hex digits
 * @param lines  what it was computed from, one fact per line
 */
public record SeedKey(String sha256, List<String> lines) {

    /** Changes whenever what a key covers changes, so that old seeds are never taken for new ones. */
    static final String VERSION = "archpool configure seed 1";

    public SeedKey {
        lines = List.copyOf(lines);
    }

    /**
     * The key of a {@code cmake} job's configure; empty for any other job.
     *
     * @param environment the coordinator's environment, which every worker's steps inherit
     */
    public static Optional<SeedKey> of(ConcreteJob concrete, Map<String, String> environment) {
        if (!(concrete.job() instanceof CmakeJob)) {
            return Optional.empty();
        }
        Optional<Step> configure = concrete.steps().stream().filter(s -> s.phase() == Phase.CONFIGURE).findFirst();
        if (configure.isEmpty() || configure.get().argv().isEmpty()) {
            return Optional.empty();
        }
        Step step = configure.get();
        List<String> lines = new ArrayList<>();
        lines.add(VERSION);
        lines.add("cmake " + program(step.argv().get(0), environment.get("PATH")));
        lines.addAll(arguments(step.argv().subList(1, step.argv().size())));
        new TreeMap<>(step.env()).forEach((k, v) -> lines.add("step-env " + k + "=" + v));
        for (String variable : ToolchainIdentity.VARIABLES) {
            String value = environment.get(variable);
            lines.add("env " + variable + (value == null ? " unset" : "=" + value));
        }
        MessageDigest md = Digests.sha256();
        lines.forEach(l -> md.update((l + "\n").getBytes(StandardCharsets.UTF_8)));
        return Optional.of(new SeedKey(Digests.hex(md.digest()), lines));
    }

    /**
     * The configure arguments that enter the key, each on a line: without {@code -S}/{@code -B} and their
     * folders, and without the project's own defines.
     */
    static List<String> arguments(List<String> args) {
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("-S") || a.equals("-B")) {
                i++;
            } else if (a.startsWith("-S") || a.startsWith("-B")) {
                continue;
            } else if (a.equals("-D") && i + 1 < args.size()) {
                String define = args.get(++i);
                if (toolchainDefine(define)) {
                    kept.add("arg -D" + define);
                }
            } else if (a.startsWith("-D")) {
                if (toolchainDefine(a.substring(2))) {
                    kept.add("arg " + a);
                }
            } else {
                kept.add("arg " + a);
            }
        }
        return kept;
    }

    /** Whether a define ({@code NAME[:TYPE]=VALUE}) can change what CMake detects, rather than being the project's. */
    static boolean toolchainDefine(String define) {
        int end = define.length();
        for (int i = 0; i < define.length(); i++) {
            char c = define.charAt(i);
            if (c == ':' || c == '=') {
                end = i;
                break;
            }
        }
        String name = define.substring(0, end);
        String upper = name.toUpperCase(Locale.ROOT);
        return name.startsWith("CMAKE_") || upper.contains("CUDA") || upper.contains("HIP") || upper.contains("ROCM");
    }

    /** The program {@code argv[0]} runs: its real path, size and modification time, or why it has none. */
    static String program(String argv0, String path) {
        Optional<Path> found = Executables.find(argv0, path);
        if (found.isEmpty()) {
            return argv0 + " absent";
        }
        try {
            Path real = found.get().toRealPath();
            return real + " " + FileStamp.of(real);
        } catch (IOException e) {
            return argv0 + " unreadable";
        }
    }

    /** A file's size and modification time, which change when a package upgrade replaces it. */
    record FileStamp(long size, long modifiedNanos) {
        static FileStamp of(Path file) throws IOException {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return new FileStamp(a.size(), a.lastModifiedTime().to(java.util.concurrent.TimeUnit.NANOSECONDS));
        }

        /** Empty when {@code file} is no regular file (or a link to none) or cannot be read. */
        static Optional<FileStamp> ofIfFile(Path file) {
            try {
                return Files.isRegularFile(file) ? Optional.of(of(file)) : Optional.empty();
            } catch (IOException e) {
                return Optional.empty();
            }
        }

        @Override
        public String toString() {
            return size + " bytes, modified " + modifiedNanos;
        }
    }
}
