package org.archpool.worker.exec;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A step running on a {@link StepHost}. The host's status thread reports {@link #started}, {@link #exited} or
 * {@link #lost}; the step's own thread waits and {@linkplain #finish finishes}, which gives the host back. A kill
 * asked for before the host has forked the step's process is carried out when it has ({@code started}), and one
 * asked for after the step has finished does nothing (the host may run another step by then).
 */
final class HostedStep implements StartedStep {

    /** How long a killed step's host may take to report its end before the host is given up. */
    static final long KILL_SECONDS = 10;

    private final StepHost host;
    private final RandomAccessFile keeper;
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();
    private final CompletableFuture<Void> copied = new CompletableFuture<>();
    private boolean started;
    private boolean killAsked;
    private boolean ended;

    HostedStep(StepHost host, RandomAccessFile keeper) {
        this.host = host;
        this.keeper = keeper;
    }

    /** Completes when the step's output has all been copied into its log. */
    CompletableFuture<Void> copied() {
        return copied;
    }

    /** The host forked the step's process, with the output FIFO open: the worker's own end can close. */
    void started() {
        boolean kill;
        synchronized (this) {
            started = true;
            kill = killAsked && !ended;
        }
        closeKeeper();
        if (kill) {
            host.killStep();
        }
    }

    /** The host reported the step's status, every other process of its namespace killed. */
    void exited(int status) {
        exit.complete(status);
    }

    /** The host ended or broke before it reported the step's status. */
    void lost(String why) {
        closeKeeper();
        exit.completeExceptionally(new IOException(why));
    }

    private void closeKeeper() {
        try {
            keeper.close();
        } catch (IOException e) {
            // closing a FIFO end releases it even when close reports an error
        }
    }

    @Override
    public boolean awaitExit(Duration limit) throws InterruptedException {
        try {
            if (limit == null) {
                exit.get();
            } else {
                exit.get(limit.toMillis(), TimeUnit.MILLISECONDS);
            }
            return true;
        } catch (ExecutionException e) {
            return true; // finish says what was lost
        } catch (TimeoutException e) {
            return false;
        }
    }

    @Override
    public List<ProcessHandle> stepProcesses() {
        synchronized (this) {
            if (ended) {
                return List.of();
            }
        }
        return host.stepProcesses();
    }

    @Override
    public void killAll() {
        boolean now;
        synchronized (this) {
            killAsked = true;
            now = started && !ended;
        }
        if (now) {
            host.killStep();
        }
    }

    @Override
    public void abandon() {
        synchronized (this) {
            ended = true;
        }
        host.discard();
        host.ended(this);
    }

    @Override
    public int finish(boolean exited) throws InterruptedException, ExecutionException {
        try {
            int status;
            try {
                status = exited ? exit.get() : exit.get(KILL_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                host.discard();
                throw new ExecutionException(new IOException("its step host did not report the step's end within "
                        + KILL_SECONDS + " s of the kill"));
            } catch (ExecutionException | InterruptedException e) {
                host.discard();
                throw e;
            }
            try {
                copied.get(StepRunner.OUTPUT_DRAIN_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException | ExecutionException e) {
                host.discard(); // its output thread is stuck or broke: this host takes no more steps
            }
            return status;
        } finally {
            synchronized (this) {
                ended = true;
            }
            host.ended(this);
        }
    }
}
