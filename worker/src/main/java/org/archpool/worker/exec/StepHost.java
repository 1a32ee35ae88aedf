package org.archpool.worker.exec;

import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.RandomAccessFile;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A long-lived POSIX shell that is the first process of a PID namespace of its own and runs steps one at a time, each
 * as its child ({@link StepScript#HOST}): a step costs one {@code fork} and the {@code exec} of its program instead of
 * the five processes and the new namespace of a {@link PidNamespaceContainment} step, and keeps that strategy's
 * promise, because the host kills every other process of its namespace ({@code kill -9 -1}) before it reports a
 * step's status. The host ends with its namespace's processes when this JVM dies by any signal (the parent-death
 * signal of {@code unshare}, tied to the thread of {@link StepHosts} that started it), or when its stdin closes.
 *
 * <p>Per step, the worker writes {@code FOLDER/step} and sends {@code run}; the step's output comes through the FIFO
 * {@code FOLDER/out}, copied into the step's log by this host's output thread until every writer has closed it (which
 * the host's {@code kill} guarantees); its status ({@code started}, then {@code exit N}) is read by this host's status
 * thread. The worker's side holds the FIFO open for writing until {@code started} ({@link HostedStep}), so that neither
 * side ever waits to open it, and a host that dies first still leaves the reader an end of file.
 */
final class StepHost implements AutoCloseable {

    /** How long a new host may take to say {@code ready}. */
    static final long START_SECONDS = 10;

    private static final OutputCopy END = new OutputCopy(InputStream.nullInputStream(), OutputStream.nullOutputStream(),
            new CompletableFuture<>());

    private final Process process;
    private final ProcessHandle first;
    private final Path folder;
    private final Writer commands;
    private final boolean exports;
    private final Path envTool;
    private final BlockingQueue<OutputCopy> copies = new LinkedBlockingQueue<>();
    private final Consumer<StepHost> whenIdle;
    private volatile HostedStep current;
    private volatile boolean broken;

    private StepHost(Process process, ProcessHandle first, Path folder, boolean exports, Path envTool,
                     Consumer<StepHost> whenIdle) {
        this.process = process;
        this.first = first;
        this.folder = folder;
        this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.exports = exports;
        this.envTool = envTool;
        this.whenIdle = whenIdle;
    }

    /** One copy of a step's output, from the FIFO into its log, done by the host's output thread. */
    record OutputCopy(InputStream from, OutputStream to, CompletableFuture<Void> done) {

        void run() {
            try (InputStream in = from) {
                in.transferTo(to);
                done.complete(null);
            } catch (IOException | RuntimeException e) {
                done.completeExceptionally(e);
            }
        }
    }

    /**
     * Starts a host, in a new private folder under {@code java.io.tmpdir}, and waits until it is ready. Must be
     * called on a thread that outlives the host (see the class comment).
     *
     * @param whenIdle receives the host each time a step on it has ended and it can take another
     */
    static StepHost start(PidNamespaceContainment namespace, Path mkfifo, Path envTool, Consumer<StepHost> whenIdle)
            throws IOException {
        Path folder = Files.createTempDirectory("archpool-step-host-");
        folder.toFile().deleteOnExit();
        folder.resolve("out").toFile().deleteOnExit();
        folder.resolve("step").toFile().deleteOnExit();
        ProcessBuilder builder = new ProcessBuilder(namespace.hostCommand(folder, mkfifo))
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().clear();
        Process process = builder.start();
        BufferedReader status = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
        CompletableFuture<Void> ready = new CompletableFuture<>();
        AtomicReference<StepHost> made = new AtomicReference<>();
        Thread reader = new Thread(() -> readStatus(status, ready, made), "archpool-step-host-status");
        reader.setDaemon(true);
        reader.start();
        try {
            ready.get(START_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw stopped(process, folder, "interrupted while it started");
        } catch (ExecutionException | TimeoutException e) {
            throw stopped(process, folder, e instanceof TimeoutException ? "not ready within " + START_SECONDS + " s"
                    : "it exited before it was ready");
        }
        ProcessHandle first = process.toHandle().children().findFirst()
                .orElseThrow(() -> stopped(process, folder, "its shell is not there"));
        StepHost host = new StepHost(process, first, folder, StepScript.exportsExactly(namespace.shell()), envTool,
                whenIdle);
        made.set(host);
        Thread copier = new Thread(host::copyOutputs, "archpool-step-host-output");
        copier.setDaemon(true);
        copier.start();
        return host;
    }

    private static IOException stopped(Process process, Path folder, String why) {
        process.destroyForcibly();
        String status = "";
        try {
            if (process.waitFor(2, TimeUnit.SECONDS)) {
                status = " (status " + process.exitValue() + ")";
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        deleteFolder(folder);
        return new IOException("the step host did not start: " + why + status);
    }

    /** The status thread: {@code ready} once, then {@code started} and {@code exit N} for each step, until EOF. */
    private static void readStatus(BufferedReader status, CompletableFuture<Void> ready,
                                   AtomicReference<StepHost> host) {
        try {
            String line;
            while ((line = status.readLine()) != null) {
                if (line.equals("ready")) {
                    ready.complete(null);
                    continue;
                }
                HostedStep step = host.get() == null ? null : host.get().current;
                if (step == null) {
                    continue; // nothing runs: a line no step asked for
                }
                if (line.equals("started")) {
                    step.started();
                } else if (line.startsWith("exit ")) {
                    step.exited(Integer.parseInt(line.substring(5).strip()));
                }
            }
        } catch (IOException | NumberFormatException e) {
            // the host's stdout broke or it printed nonsense: it is lost, as at EOF
        }
        ready.completeExceptionally(new IOException("the step host exited"));
        StepHost h = host.get();
        if (h != null) {
            h.broken = true;
            HostedStep step = h.current;
            if (step != null) {
                step.lost("its step host ended");
            }
            h.close();
        }
    }

    private void copyOutputs() {
        while (true) {
            OutputCopy copy;
            try {
                copy = copies.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (copy == END) {
                return;
            }
            copy.run();
        }
    }

    /**
     * Runs {@code argv} in {@code cwd} with exactly {@code env}, its output into {@code log}.
     *
     * @param lookUp the {@code PATH} its program is found in when {@code env} has none
     */
    HostedStep run(List<String> argv, String cwd, Map<String, String> env, String lookUp, OutputStream log)
            throws IOException {
        Path fifo = folder.resolve("out");
        RandomAccessFile keeper;
        FileInputStream in;
        try {
            Files.writeString(folder.resolve("step"), StepScript.of(argv, cwd, env, lookUp, exports, envTool));
            keeper = new RandomAccessFile(fifo.toFile(), "rw"); // read-write: opening never waits
            try {
                in = new FileInputStream(fifo.toFile()); // a writer (the keeper) exists: does not wait either
            } catch (IOException e) {
                keeper.close();
                throw e;
            }
        } catch (IOException e) {
            if (!usable()) {
                // it died while idle and its status thread closed it (removing its folder) after it was acquired
                throw new Gone(e);
            }
            throw e;
        }
        HostedStep step = new HostedStep(this, keeper);
        current = step; // before the host can answer
        copies.add(new OutputCopy(in, log, step.copied()));
        try {
            commands.write("run\n");
            commands.flush();
        } catch (IOException e) {
            current = null;
            keeper.close(); // the copy queued reads an end of file
            discard();
            throw new Gone(e);
        }
        return step;
    }

    /** The host had died before it was given the step (it died idle), which therefore did not start. */
    static final class Gone extends IOException {
        Gone(IOException cause) {
            super("the step host had ended", cause);
        }
    }

    /**
     * Whether the host can take a step: it has neither broken nor been closed, and both its shell and its
     * {@code unshare} are alive. The shell is checked on its own because {@code unshare} outlives it for a moment
     * after reaping it, and a step sent in that moment would be lost rather than refused.
     */
    boolean usable() {
        return !broken && first.isAlive() && process.isAlive();
    }

    /** The step's processes: every process of the namespace but its first. */
    List<ProcessHandle> stepProcesses() {
        return first.descendants().toList();
    }

    /** Forcibly kills the step's processes; the host then reports the step's end. */
    void killStep() {
        first.descendants().toList().forEach(ProcessHandle::destroyForcibly);
    }

    /** {@code step} has ended: the host takes the next, unless it broke, when it is closed. */
    void ended(HostedStep step) {
        if (current == step) {
            current = null;
        }
        if (broken) {
            close();
        } else {
            whenIdle.accept(this);
        }
    }

    /** Marks the host as not to be used again and ends it with every process of its namespace. */
    void discard() {
        broken = true;
        close();
    }

    /** Ends the host: its stdin closed, its {@code unshare} killed (and with it the namespace), its folder removed. */
    @Override
    public void close() {
        broken = true;
        try {
            commands.close();
        } catch (IOException e) {
            // the host is gone already, which is what closing wants
        }
        process.destroyForcibly();
        copies.add(END);
        deleteFolder(folder);
    }

    private static void deleteFolder(Path folder) {
        for (Path p : List.of(folder.resolve("out"), folder.resolve("step"), folder)) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                // left for deleteOnExit
            }
        }
    }
}
