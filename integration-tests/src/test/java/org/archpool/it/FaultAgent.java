package org.archpool.it;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.archpool.testing.MarkedProcesses;

/**
 * Signals a job's worker on the job's request, from outside: a job runs in a PID namespace of its own and
 * cannot see its worker. The job asks with {@link #ask}: it creates {@code fault-ID.SIGNAL} in the watched
 * folder and waits for {@code fault-ID.SIGNAL.done} (so a retry can ask again); the agent finds the processes whose command line names
 * that file, walks up to the worker JVM above them, sends it the signal ({@code 0} only records which worker
 * it is; its environment is kept in {@code fault-ID.SIGNAL.environ}), then creates the answer.
 */
final class FaultAgent implements AutoCloseable {

    private final Path dir;
    private final WatchService watch;
    private final Map<String, Long> signalled = new ConcurrentHashMap<>();
    private final Thread thread;

    FaultAgent(Path dir) throws IOException {
        this.dir = dir.toAbsolutePath();
        this.watch = FileSystems.getDefault().newWatchService();
        this.dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE);
        this.thread = new Thread(this::serve, "fault-agent");
        thread.setDaemon(true);
        thread.start();
    }

    /** The shell command with which job {@code id} asks for {@code signal} ({@code KILL}, {@code STOP}, {@code 0}). */
    static String ask(Path dir, String id, String signal) {
        Path request = dir.toAbsolutePath().resolve("fault-" + id + "." + signal);
        return "rm -f " + request + ".done; touch " + request + "; until [ -f " + request + ".done ]; do sleep 0.05;"
                + " done";
    }

    /** The workers signalled so far, by request file name ({@code fault-ID.SIGNAL}), as host PIDs. */
    Map<String, Long> signalled() {
        return Map.copyOf(signalled);
    }

    private void serve() {
        try {
            while (true) {
                WatchKey key = watch.take();
                for (WatchEvent<?> event : key.pollEvents()) {
                    if (event.context() instanceof Path name && name.toString().startsWith("fault-")
                            && !name.toString().endsWith(".done") && !name.toString().endsWith(".environ")) {
                        handle(name.toString());
                    }
                }
                key.reset();
            }
        } catch (ClosedWatchServiceException e) {
            // closed: the test is over
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Signals the worker of the job that asked (if it is found), then answers, so the job never waits forever. */
    private void handle(String name) throws InterruptedException {
        String signal = name.substring(name.lastIndexOf('.') + 1);
        Optional<ProcessHandle> worker = MarkedProcesses.alive(dir.resolve(name).toString()).stream()
                .map(FaultAgent::workerAbove).flatMap(Optional::stream).findFirst();
        try {
            if (worker.isPresent()) {
                signalled.put(name, worker.get().pid());
                Files.write(dir.resolve(name + ".environ"),
                        Files.readAllBytes(Path.of("/proc", Long.toString(worker.get().pid()), "environ")));
                new ProcessBuilder(List.of("kill", "-" + signal, Long.toString(worker.get().pid()))).inheritIO()
                        .start().waitFor();
            }
            Files.deleteIfExists(dir.resolve(name));
            Files.createFile(dir.resolve(name + ".done"));
        } catch (IOException e) {
            throw new IllegalStateException("cannot answer " + name, e);
        }
    }

    /** The nearest ancestor that is a worker JVM. */
    static Optional<ProcessHandle> workerAbove(ProcessHandle p) {
        Optional<ProcessHandle> at = p.parent();
        while (at.isPresent() && !at.get().info().commandLine().orElse("").contains("org.archpool.worker.WorkerMain")) {
            at = at.get().parent();
        }
        return at;
    }

    @Override
    public void close() throws IOException {
        watch.close();
    }
}
