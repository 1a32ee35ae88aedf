package org.archpool.orchestrator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.archpool.orchestrator.output.OutputPathException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The socket's path and its lock: which serve may take a path, and when. */
class SocketPathTest {

    @TempDir
    Path dir;

    private Path run() throws Exception {
        Path run = Files.createDirectories(dir.resolve("run"));
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwx------"));
        return run;
    }

    /** What a serve killed by SIGKILL leaves: a socket file that nothing listens on. */
    private static void staleSocketAt(Path socket) throws Exception {
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            dead.bind(UnixDomainSocketAddress.of(socket));
        }
    }

    @Test
    void aPathPreparedAndNotYetBoundIsRefusedToAnotherServeUntilTheFirstEnds() throws Exception {
        Path socket = run().resolve("serve.sock");
        try (SocketPath first = SocketPath.prepare(socket)) {
            // the first serve still resolves its target: no socket yet, which alone would look free
            assertThat(socket).doesNotExist();
            assertThatThrownBy(() -> SocketPath.prepare(socket)).isInstanceOf(OutputPathException.class)
                    .hasMessageContaining("another archpool serve")
                    .hasMessageContaining("pid " + ProcessHandle.current().pid())
                    .hasMessageContaining(socket + ".lock")
                    .hasMessageContaining("--stop");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(Path.of(socket + ".lock"))))
                    .isEqualTo("rw-------");
        }
        try (SocketPath again = SocketPath.prepare(socket)) {
            assertThat(again.path()).isEqualTo(socket);
        }
        assertThat(Path.of(socket + ".lock")).as("the lock file stays: only the lock matters").exists();
    }

    @Test
    void aSocketThatAnswersIsRefusedEvenWithTheLockFreeAndAStaleOneReplaced() throws Exception {
        Path socket = run().resolve("serve.sock");
        // a serve of an archpool without the lock file, listening
        try (ServerSocketChannel live = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            live.bind(UnixDomainSocketAddress.of(socket));
            assertThatThrownBy(() -> SocketPath.prepare(socket)).isInstanceOf(OutputPathException.class)
                    .hasMessageContaining("another archpool serve is listening on that socket");
            assertThat(socket).exists();
        }
        try (SocketPath replaced = SocketPath.prepare(socket)) {
            assertThat(socket).as("the stale socket is removed").doesNotExist();
        }
    }

    @Test
    void twoServesRacingOnAStaleSocketLetExactlyOneTakeItAndTheWinnersSocketStays() throws Exception {
        Path socket = run().resolve("serve.sock");
        for (int round = 0; round < 20; round++) {
            staleSocketAt(socket);
            CountDownLatch go = new CountDownLatch(1);
            ExecutorService racers = Executors.newFixedThreadPool(2);
            try {
                Callable<SocketPath> race = () -> {
                    go.await();
                    try {
                        SocketPath p = SocketPath.prepare(socket);
                        p.bind().close(); // the winner binds: nobody else may remove that socket
                        return p;
                    } catch (OutputPathException e) {
                        assertThat(e.getMessage()).contains("another archpool serve");
                        return null;
                    }
                };
                List<Future<SocketPath>> both = new ArrayList<>(List.of(racers.submit(race), racers.submit(race)));
                go.countDown();
                List<SocketPath> won = new ArrayList<>();
                for (Future<SocketPath> f : both) {
                    SocketPath p = f.get(10, TimeUnit.SECONDS);
                    if (p != null) {
                        won.add(p);
                    }
                }
                assertThat(won).as("round " + round + ": exactly one serve takes the path").hasSize(1);
                assertThat(socket).as("the winner's socket is not removed by the loser").exists();
                won.get(0).remove();
                won.get(0).close();
            } finally {
                racers.shutdownNow();
            }
        }
    }

    @Test
    void aFolderAboveTheSocketsThatAnotherUserOwnsIsRefused() throws Exception {
        Path shared = Files.createDirectories(dir.resolve("shared"));
        // only root may give a folder away: this is /tmp/shared of another user, with the socket's folder in it
        Files.setOwner(shared, dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));
        assertThatThrownBy(() -> SocketPath.prepare(shared.resolve("me/a.sock")))
                .isInstanceOf(OutputPathException.class)
                .hasMessageContaining(shared + ", a folder above the socket's, belongs to another user (uid 65534)")
                .hasMessageContaining("$XDG_RUNTIME_DIR");
        assertThat(shared.resolve("me")).as("nothing created under it").doesNotExist();
    }

    @Test
    void aFolderAboveTheSocketsThatOthersMayWriteIsRefusedUnlessItIsRootsAndSticky() throws Exception {
        Path open = Files.createDirectories(dir.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> SocketPath.prepare(open.resolve("me/a.sock")))
                .isInstanceOf(OutputPathException.class)
                .hasMessageContaining(open + ", a folder above the socket's, has mode 0777")
                .hasMessageContaining("chmod go-w " + open);

        Files.setAttribute(open, "unix:mode", 01777); // as /tmp is: only an entry's owner may rename it
        try (SocketPath socket = SocketPath.prepare(open.resolve("me/a.sock"))) {
            assertThat(Files.getPosixFilePermissions(open.resolve("me"))).isEqualTo(
                    PosixFilePermissions.fromString("rwx------"));
        }
    }
}
