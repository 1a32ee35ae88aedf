package org.archpool.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Assumptions;

/**
 * The rule for tests that need an external tool (nvcc, hipcc, cmake, chromium, ...): on a developer machine
 * without the tool the test is skipped, but on CI, recognised by the environment variable {@value #CI_VARIABLE}
 * being {@code true}, a missing tool fails the test, so that a misconfigured CI image cannot turn a test suite
 * green by skipping it ({@code .ci/run} installs every tool the tests need). Every message names the tool and
 * how to get it.
 */
public final class RequiredTool {

    /** The environment variable CI systems (GitHub Actions, GitLab CI and others) set to {@code true}. */
    public static final String CI_VARIABLE = "CI";

    /** How to get a tool that a test only names. */
    static final String ON_THE_PATH = "put it on the PATH; scripts/setup-debian.sh installs most of them";

    private RequiredTool() {
    }

    /**
     * Requires each of {@code tools} on this process's {@code PATH}.
     *
     * @param tools executables' file names, e.g. {@code cmake}, {@code ninja}, {@code nvcc}
     */
    public static void require(String... tools) {
        Map<String, String> env = System.getenv();
        for (String tool : tools) {
            require(findOnPath(tool, env), tool, ON_THE_PATH, env);
        }
    }

    /**
     * @param tools the names one tool goes by, e.g. {@code chromium} and {@code google-chrome}
     * @param hint  how to provide it, for the message
     * @return the first of {@code tools} on this process's {@code PATH}
     */
    public static Path requireOneOf(List<String> tools, String hint) {
        Map<String, String> env = System.getenv();
        Optional<Path> found = tools.stream().map(tool -> findOnPath(tool, env)).flatMap(Optional::stream)
                .findFirst();
        return require(found, String.join(" or ", tools), hint, env);
    }

    /**
     * @param location where the tool was found, or empty
     * @param tool     the tool's name, for the message
     * @param hint     how to provide the tool, for the message
     * @param env      the environment to read {@value #CI_VARIABLE} from, normally {@link System#getenv()}
     * @return the tool's location
     * @throws org.opentest4j.TestAbortedException  (skips the test) when the tool is missing and this is not CI
     * @throws org.opentest4j.AssertionFailedError (fails the test) when the tool is missing on CI
     */
    public static Path require(Optional<Path> location, String tool, String hint, Map<String, String> env) {
        if (location.isPresent()) {
            return location.get();
        }
        String message = tool + " not found (" + hint + ")";
        if (isCi(env)) {
            fail(message + "; " + CI_VARIABLE + "=true, so a missing " + tool + " is an error, not a skip"
                    + " (.ci/run must have installed it)");
        }
        Assumptions.abort(message + "; skipping (set " + CI_VARIABLE + "=true to make this a failure)");
        throw new AssertionError("unreachable");
    }

    /**
     * @param env an environment
     * @return whether it says this is a CI run
     */
    public static boolean isCi(Map<String, String> env) {
        return "true".equals(env.get(CI_VARIABLE));
    }

    /**
     * @param name an executable's file name, e.g. {@code nvcc}
     * @param env  the environment whose {@code PATH} to search
     * @return the first executable of that name in {@code PATH}
     */
    public static Optional<Path> findOnPath(String name, Map<String, String> env) {
        String path = env.get("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Optional<Path> candidate = executable(dir, name);
            if (candidate.isPresent()) {
                return candidate;
            }
        }
        return Optional.empty();
    }

    /**
     * @param dir  a directory, possibly null or empty
     * @param name a file name in it
     * @return the file, when it exists and is executable
     */
    public static Optional<Path> executable(String dir, String name) {
        if (dir == null || dir.isEmpty()) {
            return Optional.empty();
        }
        try {
            Path candidate = Path.of(dir, name);
            return Files.isRegularFile(candidate) && Files.isExecutable(candidate)
                    ? Optional.of(candidate)
                    : Optional.empty();
        } catch (InvalidPathException e) {
            return Optional.empty();
        }
    }
}
