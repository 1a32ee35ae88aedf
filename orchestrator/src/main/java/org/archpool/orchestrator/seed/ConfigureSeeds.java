package org.archpool.orchestrator.seed;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.archpool.orchestrator.toolchain.ConcreteJob;
import org.archpool.protocol.CmakeJob;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The seeds of one build or {@code serve}: a folder with one sub-folder per {@link SeedKey}, each holding the
 * toolchain's {@code CMakeCache.txt} entries ({@link ToolchainEntries}), the files CMake wrote under
 * {@code CMakeFiles/<version>/} ({@code CMakeSystem.cmake} and one {@code CMake<LANG>Compiler.cmake} per language),
 * and the size and modification time of every tool they name. In the cache folder a seed serves later builds too
 * (compiler identification then runs once per machine); without a cache the folder is temporary and removed at the
 * end.
 *
 * <p>The first fresh build tree of a key whose configure succeeds becomes its seed ({@link #harvest}); each later
 * fresh build tree of that key starts from it ({@link #plant}). A seed whose tools changed since is dropped, never
 * used. Nothing here fails a job: a seed that cannot be read or written is not used, and the coordinator's log says
 * why. Safe for the scheduler's slot threads and for several builds sharing a cache folder (each seed is written
 * under a temporary name and renamed into place).
 */
public final class ConfigureSeeds implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConfigureSeeds.class);

    static final String CACHE_FILE = "CMakeCache.txt";

    /** Whether {@code buildDir} is a fresh build tree: it holds no {@code CMakeCache.txt}, so a seed may go in. */
    public static boolean isFresh(Path buildDir) {
        return !Files.exists(buildDir.resolve(CACHE_FILE));
    }
    static final String TOOLS_FILE = "tools";
    private static final Pattern COMPILER_FILE = Pattern.compile("CMake(\\w+)Compiler\\.cmake");
    private static final String HEADER = "# Toolchain entries seeded by archpool from an earlier configure with the"
            + " same toolchain; CMake adds the project's own below.";

    private final Path root;
    private final boolean temporary;
    private final Map<String, String> environment;

    private ConfigureSeeds(Path root, boolean temporary, Map<String, String> environment) {
        this.root = root;
        this.temporary = temporary;
        this.environment = Map.copyOf(environment);
    }

    /** Seeds kept in {@code folder} (created, mode 0700), which outlive the session: the cache folder's. */
    public static ConfigureSeeds in(Path folder, Map<String, String> environment) throws IOException {
        if (!Files.isDirectory(folder)) {
            Files.createDirectories(folder,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        return new ConfigureSeeds(folder, false, environment);
    }

    /** Seeds for this session only, in a new temporary folder removed by {@link #close()}. */
    public static ConfigureSeeds temporary(Map<String, String> environment) throws IOException {
        return new ConfigureSeeds(Files.createTempDirectory("archpool-seeds-"), true, environment);
    }

    /** The folder seeds are kept in. */
    public Path folder() {
        return root;
    }

    /**
     * The key of a {@code cmake} job's configure; empty for other jobs, and for a project that picks its own
     * toolchain before {@code project()} ({@link OwnToolchain}), which a seed would override.
     */
    public Optional<SeedKey> keyOf(ConcreteJob job) {
        if (job.job() instanceof CmakeJob c) {
            Optional<String> own = OwnToolchain.chosenIn(Path.of(c.sourceDir()));
            if (own.isPresent()) {
                LOG.info("job {} is configured without a seed: {}", c.id(), own.get());
                return Optional.empty();
            }
        }
        return SeedKey.of(job, environment);
    }

    /**
     * Seeds {@code buildDir} when it holds no {@code CMakeCache.txt} (a fresh build tree) and a usable seed of
     * {@code key} exists.
     *
     * @return whether the build tree was seeded
     */
    public boolean plant(SeedKey key, Path buildDir) {
        Path seed = root.resolve(key.sha256());
        if (Files.exists(buildDir.resolve(CACHE_FILE)) || !Files.isDirectory(seed)) {
            return false;
        }
        try {
            String stale = staleTool(seed);
            if (stale != null) {
                LOG.info("configure seed {} not used, and removed: {}", key.sha256(), stale);
                discard(key);
                return false;
            }
            Optional<Path> version = versionFolder(seed);
            if (version.isEmpty()) {
                return false;
            }
            String damaged = damaged(seed, version.get());
            if (damaged != null) {
                LOG.info("configure seed {} not used, and removed: {}", key.sha256(), damaged);
                discard(key);
                return false;
            }
            Path files = Files.createDirectories(buildDir.resolve("CMakeFiles").resolve(version.get().getFileName()));
            try (Stream<Path> list = Files.list(version.get())) {
                for (Path f : list.toList()) {
                    Files.copy(f, files.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            List<String> lines = new ArrayList<>();
            lines.add(HEADER);
            lines.addAll(Files.readAllLines(seed.resolve(CACHE_FILE), StandardCharsets.ISO_8859_1));
            Files.write(buildDir.resolve(CACHE_FILE), lines, StandardCharsets.ISO_8859_1);
            return true;
        } catch (IOException | RuntimeException e) {
            LOG.info("configure seed {} not planted in {}: {}", key.sha256(), buildDir, e.toString());
            unplant(buildDir);
            return false;
        }
    }

    /**
     * Makes {@code buildDir}, freshly configured without a seed, the seed of {@code key} when there is none yet:
     * only its toolchain entries and CMake's files of this version are kept.
     */
    public void harvest(SeedKey key, Path buildDir) {
        Path seed = root.resolve(key.sha256());
        if (Files.isDirectory(seed)) {
            return;
        }
        Path tmp = root.resolve("tmp-" + ProcessHandle.current().pid() + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        try {
            List<String> cache = Files.readAllLines(buildDir.resolve(CACHE_FILE), StandardCharsets.ISO_8859_1);
            String version = version(cache);
            Path files = buildDir.resolve("CMakeFiles").resolve(version == null ? "" : version);
            if (version == null || !"1".equals(ToolchainEntries.value(cache, "CMAKE_PLATFORM_INFO_INITIALIZED"))
                    || !Files.isRegularFile(files.resolve("CMakeSystem.cmake"))) {
                LOG.info("configure seed {} not taken from {}: CMake left no platform information there",
                        key.sha256(), buildDir);
                return;
            }
            List<String> carried = ToolchainEntries.of(cache);
            Path into = Files.createDirectories(tmp.resolve(version));
            try (Stream<Path> list = Files.list(files)) {
                for (Path f : list.filter(ConfigureSeeds::detected).toList()) {
                    Files.copy(f, into.resolve(f.getFileName()));
                }
            }
            Files.write(tmp.resolve(CACHE_FILE), carried, StandardCharsets.ISO_8859_1);
            List<String> tools = new ArrayList<>();
            for (String path : ToolchainEntries.tools(carried).values()) {
                Path tool = Path.of(path);
                if (tool.isAbsolute()) {
                    SeedKey.FileStamp.ofIfFile(tool).ifPresent(s -> tools.add(s.size() + " " + s.modifiedNanos()
                            + " " + path));
                }
            }
            Files.write(tmp.resolve(TOOLS_FILE), tools, StandardCharsets.UTF_8);
            Files.move(tmp, seed, StandardCopyOption.ATOMIC_MOVE);
            LOG.info("configure seed {} taken from {}", key.sha256(), buildDir);
        } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
            // another slot or build took the seed of this key first
        } catch (IOException | RuntimeException e) {
            LOG.info("configure seed {} not taken from {}: {}", key.sha256(), buildDir, e.toString());
        } finally {
            deleteTree(tmp);
        }
    }

    /** Drops the seed of {@code key}: a seeded configure failed with it, or its tools changed. */
    public void discard(SeedKey key) {
        Path seed = root.resolve(key.sha256());
        Path gone = root.resolve("gone-" + ProcessHandle.current().pid() + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        try {
            Files.move(seed, gone, StandardCopyOption.ATOMIC_MOVE);
        } catch (NoSuchFileException e) {
            return;
        } catch (IOException e) {
            LOG.info("configure seed {} could not be removed: {}", key.sha256(), e.toString());
            return;
        }
        deleteTree(gone);
    }

    /**
     * Whether the configure in {@code buildDir} enabled {@code language} ({@code CUDA}, {@code HIP}): CMake wrote
     * its {@code CMakeFiles/<version>/CMake<LANG>Compiler.cmake}.
     */
    public static boolean enablesLanguage(Path buildDir, String language) {
        Path files = buildDir.resolve("CMakeFiles");
        if (!Files.isDirectory(files)) {
            return false;
        }
        try (Stream<Path> versions = Files.list(files)) {
            return versions.anyMatch(v -> Files.isRegularFile(v.resolve("CMake" + language + "Compiler.cmake")));
        } catch (IOException e) {
            LOG.info("{} could not be read: {}", files, e.toString());
            return false;
        }
    }

    /**
     * Removes what a seeded configure leaves in a build tree ({@code CMakeCache.txt} and {@code CMakeFiles/}), so
     * that the next configure there starts fresh.
     */
    public static void unplant(Path buildDir) {
        try {
            Files.deleteIfExists(buildDir.resolve(CACHE_FILE));
        } catch (IOException e) {
            LOG.info("{} could not be removed: {}", buildDir.resolve(CACHE_FILE), e.toString());
        }
        deleteTree(buildDir.resolve("CMakeFiles"));
    }

    /** Removes the folder of a temporary session's seeds. */
    @Override
    public void close() {
        if (temporary) {
            deleteTree(root);
        }
    }

    /** {@code CMakeSystem.cmake} and {@code CMake<LANG>Compiler.cmake}: what CMake loads instead of detecting. */
    private static boolean detected(Path file) {
        String name = file.getFileName().toString();
        return Files.isRegularFile(file) && (name.equals("CMakeSystem.cmake")
                || name.startsWith("CMake") && name.endsWith("Compiler.cmake"));
    }

    /** {@code MAJOR.MINOR.PATCH} of the CMake that wrote the cache, which names its folder under CMakeFiles. */
    private static String version(List<String> cache) {
        String major = ToolchainEntries.value(cache, "CMAKE_CACHE_MAJOR_VERSION");
        String minor = ToolchainEntries.value(cache, "CMAKE_CACHE_MINOR_VERSION");
        String patch = ToolchainEntries.value(cache, "CMAKE_CACHE_PATCH_VERSION");
        if (major == null || minor == null || patch == null) {
            return null;
        }
        return major + "." + minor + "." + patch;
    }

    /**
     * Why a seed cannot be what {@link #harvest} wrote, or null: a file of it empty (CMake reads a compiler file of
     * 0 bytes as no compiler, and silently builds none of that language's sources), {@code CMakeSystem.cmake}
     * missing, or a {@code CMake<LANG>Compiler.cmake} without its compiler's id.
     */
    private static String damaged(Path seed, Path version) throws IOException {
        if (Files.size(seed.resolve(CACHE_FILE)) == 0) {
            return CACHE_FILE + " is empty";
        }
        if (!Files.isRegularFile(version.resolve("CMakeSystem.cmake"))) {
            return "it has no CMakeSystem.cmake";
        }
        try (Stream<Path> list = Files.list(version)) {
            for (Path f : list.toList()) {
                if (Files.size(f) == 0) {
                    return f.getFileName() + " is empty";
                }
                Matcher lang = COMPILER_FILE.matcher(f.getFileName().toString());
                if (lang.matches() && !Files.readString(f, StandardCharsets.ISO_8859_1)
                        .matches("(?s).*set\\(CMAKE_" + Pattern.quote(lang.group(1)) + "_COMPILER_ID \"[^\"]+\"\\).*")) {
                    return f.getFileName() + " names no compiler id";
                }
            }
        }
        return null;
    }

    private static Optional<Path> versionFolder(Path seed) throws IOException {
        try (Stream<Path> list = Files.list(seed)) {
            return list.filter(Files::isDirectory).findFirst();
        }
    }

    /** Why a seed may no longer describe its tools (one was replaced or removed), or null when it does. */
    private static String staleTool(Path seed) throws IOException {
        for (String line : Files.readAllLines(seed.resolve(TOOLS_FILE), StandardCharsets.UTF_8)) {
            String[] parts = line.split(" ", 3);
            if (parts.length < 3) {
                return "its tools file is damaged";
            }
            Optional<SeedKey.FileStamp> now = SeedKey.FileStamp.ofIfFile(Path.of(parts[2]));
            if (now.isEmpty() || now.get().size() != Long.parseLong(parts[0])
                    || now.get().modifiedNanos() != Long.parseLong(parts[1])) {
                return parts[2] + " changed since the seed was taken";
            }
        }
        return null;
    }

    private static void deleteTree(Path folder) {
        if (!Files.exists(folder)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(folder)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | RuntimeException e) {
            LOG.info("{} could not be removed: {}", folder, e.toString());
        }
    }
}
