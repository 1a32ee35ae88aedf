package org.archpool.worker.exec;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The {@link StepHost}s of one {@link StepLauncher}: idle ones are reused, one more is started when every host is
 * busy, so there are as many as steps ever ran at once. Every host is started from one thread of this object's, which
 * lives as long as the launcher: the parent-death signal that ends a host with this JVM is tied to the thread that
 * started it, and a job's thread may end first. The first host that cannot start makes hosts unavailable for good
 * ({@link #unavailable()} says why), and steps are then spawned as before.
 */
final class StepHosts implements AutoCloseable {

    private final PidNamespaceContainment namespace;
    private final Path mkfifo;
    private final Path envTool;
    private final ExecutorService starter = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "archpool-step-hosts");
        t.setDaemon(true);
        return t;
    });
    private final Deque<StepHost> idle = new ArrayDeque<>();
    private final List<StepHost> all = new ArrayList<>();
    private String unavailable;
    private boolean closed;

    StepHosts(PidNamespaceContainment namespace, Path mkfifo, Path envTool) {
        this.namespace = namespace;
        this.mkfifo = mkfifo;
        this.envTool = envTool;
    }

    /** An idle host, or a new one; empty when hosts are unavailable (or closed). */
    Optional<StepHost> acquire() {
        synchronized (this) {
            if (unavailable != null || closed) {
                return Optional.empty();
            }
            all.removeIf(h -> !h.usable());
            StepHost host;
            while ((host = idle.pollFirst()) != null) {
                if (host.usable()) {
                    return Optional.of(host); // else it died while idle: its status thread closed it
                }
            }
        }
        try {
            StepHost host = starter.submit(() -> StepHost.start(namespace, mkfifo, envTool, this::giveBack)).get();
            synchronized (this) {
                if (!closed) {
                    all.add(host);
                    return Optional.of(host);
                }
            }
            host.close();
            return Optional.empty();
        } catch (ExecutionException e) {
            synchronized (this) {
                unavailable = e.getCause() instanceof IOException io ? io.getMessage() : String.valueOf(e.getCause());
            }
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private void giveBack(StepHost host) {
        boolean close;
        synchronized (this) {
            close = closed;
            if (!close) {
                idle.addFirst(host);
            }
        }
        if (close) {
            host.close();
        }
    }

    /** {@code host} could not take a step: it is given up, and so are hosts, for {@code why}. */
    void failed(StepHost host, IOException why) {
        host.discard();
        synchronized (this) {
            unavailable = "a step host could not take a step: " + why.getMessage();
        }
    }

    /** Why steps are not hosted, once a host failed to start. */
    synchronized Optional<String> unavailable() {
        return Optional.ofNullable(unavailable);
    }

    /** Ends every host (and whatever step still runs on one) and the starting thread. */
    @Override
    public void close() {
        List<StepHost> hosts;
        synchronized (this) {
            closed = true;
            hosts = new ArrayList<>(all);
            idle.clear();
        }
        hosts.forEach(StepHost::close);
        starter.shutdownNow();
    }
}
