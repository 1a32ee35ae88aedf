package org.archpool.orchestrator.service;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Clients over a Unix domain socket: one accept thread; each connection gets a reader thread and a
 * {@link ConnectionWriter}. A client that disconnects ends only its own jobs. At most {@link #MAX_CLIENTS}
 * connections are open at once: one more is told {@code too-many-clients} and closed. Closing removes the socket.
 */
public final class SocketTransport implements Transport {

    private static final Logger LOG = LoggerFactory.getLogger(SocketTransport.class);

    /** How many connections may be open at once: each holds two threads and its buffers. */
    public static final int MAX_CLIENTS = 256;

    private final SocketPath path;
    private final ServerSocketChannel server;
    private final Clock clock;
    private final Duration stallLimit;
    private final int maxClients;
    private final ServiceCodec codec = new ServiceCodec();
    private final List<ConnectionWriter> writers = new ArrayList<>();
    private Thread acceptor;

    /** @param server bound to {@code path} ({@link SocketPath#bind()}) */
    public SocketTransport(SocketPath path, ServerSocketChannel server, Clock clock, Duration stallLimit) {
        this(path, server, clock, stallLimit, MAX_CLIENTS);
    }

    /** @param maxClients how many connections may be open at once */
    SocketTransport(SocketPath path, ServerSocketChannel server, Clock clock, Duration stallLimit, int maxClients) {
        this.path = path;
        this.server = server;
        this.clock = clock;
        this.stallLimit = stallLimit;
        this.maxClients = maxClients;
    }

    @Override
    public void start(JobService service) {
        // the socket is 0600 from here on (SocketPath.bind), and its folder let no one else in before
        acceptor = new Thread(() -> accept(service), "archpool-serve-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        LOG.info("listening on {}", path.path());
    }

    private void accept(JobService service) {
        int n = 0;
        while (true) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (AsynchronousCloseException e) {
                return;
            } catch (IOException e) {
                LOG.error("cannot accept a connection on {}: {}; serve takes no more clients", path.path(),
                        e.toString());
                return;
            }
            if (!admitted(channel)) {
                continue;
            }
            String name = "socket client " + (++n);
            InputStream in = ChannelStreams.in(channel);
            OutputStream out = ChannelStreams.out(channel);
            JobService.Connection[] connection = new JobService.Connection[1];
            ConnectionWriter writer = new ConnectionWriter(out, channel, name, clock, stallLimit,
                    ConnectionWriter.DEFAULT_MAX_QUEUED_BYTES, why -> {
                        if (connection[0] != null) {
                            connection[0].gone(why);
                        }
                    });
            synchronized (this) {
                writers.removeIf(w -> !w.isOpen());
                writers.add(writer);
            }
            connection[0] = service.connect(writer, name);
            new ConnectionReader(in, connection[0], name, () -> { }).start();
        }
    }

    /** Whether there is room for one more connection; if not, tells it why and closes it. */
    private boolean admitted(SocketChannel channel) {
        synchronized (this) {
            writers.removeIf(w -> !w.isOpen());
            if (writers.size() < maxClients) {
                return true;
            }
        }
        String why = "archpool serve already has " + maxClients + " clients connected, its limit; disconnect one"
                + " (a shared serve needs one connection per process, not per job) or start another serve";
        LOG.warn("a connection refused: {}", why);
        try (channel) {
            // a new connection's send buffer has room for one line: this write does not block
            ChannelStreams.out(channel).write(codec.encode(ServerMessage.Error.of(ErrorCode.TOO_MANY_CLIENTS, why)));
        } catch (IOException e) {
            LOG.debug("telling a refused connection why: {}", e.toString());
        }
        return false;
    }

    @Override
    public void finish(Duration patience) {
        stopAccepting();
        List<ConnectionWriter> all;
        synchronized (this) {
            all = new ArrayList<>(writers);
        }
        long deadline = System.nanoTime() + patience.toNanos();
        for (ConnectionWriter w : all) {
            w.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
    }

    @Override
    public void close() {
        finish(Duration.ZERO);
    }

    private void stopAccepting() {
        try {
            server.close();
        } catch (IOException e) {
            LOG.debug("closing the socket: {}", e.toString());
        }
        path.remove();
    }
}
