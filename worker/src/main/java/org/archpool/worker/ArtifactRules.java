package org.archpool.worker;

import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.JobSpec;

/**
 * Which files a job's artifact rules collect, in one place for the {@link ArtifactScanner} (after a build) and for
 * the build cache (an entry's paths, before it stores one and before it restores one, so that an entry can only put
 * back what the job itself would have collected).
 *
 * <p>Every artifact lies in the job's output folder (the build folder of a cmake job, the cwd of a command job),
 * outside hidden folders ({@code .git}). With {@code artifacts} globs, an artifact's path relative to that folder
 * matches one of them, and a glob without wildcards names a file that must be there. Without globs, a cmake job's
 * artifacts lie outside {@code CMakeFiles/}; a command job whose argv names its outputs ({@code -o FILE},
 * {@code --output-file FILE}, {@code --output=FILE}) has exactly those.
 */
public final class ArtifactRules {

    private static final String CMAKE_FILES = "CMakeFiles";
    private static final String WILDCARDS = "*?[]{}\\";

    private final Path root;
    private final List<String> globs;
    private final List<PathMatcher> matchers;
    private final boolean cmake;
    private final List<Path> named;

    private ArtifactRules(Path root, List<String> globs, boolean cmake, List<Path> named) {
        this.root = root;
        this.globs = globs;
        this.matchers = globs.stream().map(g -> FileSystems.getDefault().getPathMatcher("glob:" + g)).toList();
        this.cmake = cmake;
        this.named = named;
    }

    /** The rules of {@code job}. */
    public static ArtifactRules of(JobSpec job) {
        Path root = Path.of(job instanceof CmakeJob c ? c.buildDir() : ((CommandJob) job).cwd()).normalize();
        List<Path> named = job instanceof CommandJob command && job.artifacts().isEmpty()
                ? namedOutputs(command, root) : List.of();
        return new ArtifactRules(root, job.artifacts(), job instanceof CmakeJob, named);
    }

    /** The job's output folder, where its artifacts are looked for. */
    public Path root() {
        return root;
    }

    /** Whether the job has {@code artifacts} globs. */
    public boolean hasGlobs() {
        return !globs.isEmpty();
    }

    /** The outputs a command job without globs names in its argv, in argv order; empty for every other job. */
    public List<Path> namedOutputs() {
        return named;
    }

    /** Whether the scanner leaves out folder {@code dir}, a folder under the output folder. */
    public boolean skipsFolder(Path dir) {
        String name = dir.getFileName().toString();
        return name.startsWith(".") || (globs.isEmpty() && name.equals(CMAKE_FILES));
    }

    /** Whether {@code file}, under the output folder, matches one of the globs (there are some). */
    public boolean matchesGlob(Path file) {
        Path relative = root.relativize(file);
        return matchers.stream().anyMatch(m -> m.matches(relative));
    }

    /**
     * Why {@code paths} cannot be the artifacts these rules collected, or empty when they can: a path that is not
     * absolute and normal, lies outside the output folder or in a folder the scanner leaves out, matches no glob, is
     * not an output the argv names, or is listed twice; or a file the rules require (a glob without wildcards, an
     * output the argv names) missing. Only the paths are looked at, not the files.
     */
    public Optional<String> refusal(List<String> paths) {
        Set<Path> seen = new HashSet<>();
        for (String text : paths) {
            Path path = Path.of(text);
            if (!path.isAbsolute() || !path.normalize().toString().equals(text)) {
                return Optional.of(text + " is not an absolute path without . or .. in it");
            }
            if (!path.startsWith(root) || path.equals(root)) {
                return Optional.of(text + " is not in the job's output folder " + root);
            }
            for (Path folder = path.getParent(); !folder.equals(root); folder = folder.getParent()) {
                if (skipsFolder(folder)) {
                    return Optional.of(text + " is in " + folder + ", a folder whose files are never artifacts");
                }
            }
            if (!globs.isEmpty() && !matchesGlob(path)) {
                return Optional.of(text + " matches none of the job's artifacts globs " + globs);
            }
            if (!named.isEmpty() && !named.contains(path)) {
                return Optional.of(text + " is not one of the outputs the job's argv names " + named);
            }
            if (!seen.add(path)) {
                return Optional.of(text + " is listed twice");
            }
        }
        for (Path required : required()) {
            if (!seen.contains(required)) {
                return Optional.of(required + ", which the job's artifact rules require, is missing");
            }
        }
        return Optional.empty();
    }

    /** The files the rules name outright: globs without wildcards, or the outputs the argv names. */
    private List<Path> required() {
        List<Path> required = new ArrayList<>(named);
        for (String glob : globs) {
            if (glob.chars().noneMatch(c -> WILDCARDS.indexOf(c) >= 0)) {
                required.add(root.resolve(glob).normalize());
            }
        }
        return required;
    }

    /** The outputs {@code job}'s argv names, resolved against {@code cwd}, in argv order, without duplicates. */
    private static List<Path> namedOutputs(CommandJob job, Path cwd) {
        List<String> argv = job.argv();
        List<Path> outputs = new ArrayList<>();
        for (int i = 1; i < argv.size(); i++) {
            String arg = argv.get(i);
            String value = null;
            if ((arg.equals("-o") || arg.equals("--output-file") || arg.equals("--output")) && i + 1 < argv.size()) {
                value = argv.get(++i);
            } else if (arg.startsWith("--output-file=") || arg.startsWith("--output=") || arg.startsWith("-o=")) {
                value = arg.substring(arg.indexOf('=') + 1);
            }
            if (value != null && !value.isEmpty()) {
                Path file = cwd.resolve(value).normalize();
                if (!outputs.contains(file)) {
                    outputs.add(file);
                }
            }
        }
        return outputs;
    }
}
