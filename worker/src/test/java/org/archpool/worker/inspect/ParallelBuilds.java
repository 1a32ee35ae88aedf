package org.archpool.worker.inspect;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Test helper that runs slow builds (real compilers, a few seconds each) in parallel, each in its own directory, so
 * that a test class can start them all in {@code @BeforeAll} and each test waits only for the ones it reads.
 *
 * <p>Typical use: create one in {@code @BeforeAll} on a static {@code @TempDir}, {@link #submit} every build there,
 * {@link #get} a build's result in the tests, and {@link #close} it in {@code @AfterAll}.
 *
 * @param <T> what a build gives, e.g. the path of the binary it wrote
 */
final class ParallelBuilds<T> implements AutoCloseable {

    /** How long {@link #get} waits for one build, queueing included. */
    private static final long TIMEOUT_MINUTES = 10;

    /** One build: makes its result in a directory of its own. */
    @FunctionalInterface
    interface Build<T> {
        /**
         * @param directory an empty directory for this build alone
         * @return the build's result
         */
        T in(Path directory) throws Exception;
    }

    private final Path root;
    private final ExecutorService pool =
            Executors.newFixedThreadPool(Math.max(2, Runtime.getRuntime().availableProcessors()));
    private final Map<String, Future<T>> builds = new ConcurrentHashMap<>();

    /** @param root the directory to make each build's directory in, e.g. a static {@code @TempDir} */
    ParallelBuilds(Path root) {
        this.root = root;
    }

    /**
     * Creates the directory {@code root/name} and starts the build in it.
     *
     * @param name  the build's name, unique within this instance, and the name of its directory
     * @param build what to run
     * @throws IllegalArgumentException when a build of that name was already submitted
     */
    void submit(String name, Build<T> build) throws IOException {
        if (builds.containsKey(name)) {
            throw new IllegalArgumentException("a build named " + name + " was already submitted");
        }
        Path directory = Files.createDirectory(root.resolve(name));
        builds.put(name, pool.submit(() -> build.in(directory)));
    }

    /**
     * Waits for a build and returns its result.
     *
     * @param name the name it was submitted under
     * @return the build's result
     * @throws AssertionError when no build of that name was submitted, or it did not finish in time
     * @throws Exception      the build's own exception (or error), unwrapped, when it failed
     */
    T get(String name) throws Exception {
        Future<T> future = builds.get(name);
        if (future == null) {
            throw new AssertionError("no build named " + name + " was submitted; the builds are "
                    + new TreeSet<>(builds.keySet()));
        }
        try {
            return future.get(TIMEOUT_MINUTES, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        } catch (TimeoutException e) {
            throw new AssertionError("build " + name + " did not finish within " + TIMEOUT_MINUTES + " minutes", e);
        }
    }

    /** Stops the builds still running or queued, interrupting them. */
    @Override
    public void close() {
        pool.shutdownNow();
    }
}
