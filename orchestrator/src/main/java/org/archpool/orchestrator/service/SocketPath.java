package org.archpool.orchestrator.service;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;
import org.archpool.orchestrator.output.FileErrors;
import org.archpool.orchestrator.output.OutputPathException;
import org.archpool.orchestrator.output.PathKind;

/**
 * The path of {@code serve}'s Unix socket, checked and bound as docs/service.md says: its folder is created with
 * mode 0700 when missing, and refused when another user owns it or others may enter it; every folder above it
 * must be this user's or root's and writable by no one else (or root's and sticky, as {@code /tmp} is); {@code PATH.lock} is
 * locked for as long as this is open ({@link SocketLock}), and a path another {@code serve} holds so is refused;
 * a path that is not a socket is refused; a socket that answers belongs to another {@code serve} (refused); one
 * that does not is stale, and replaced. The socket gets mode 0600. Closing it releases the lock.
 */
public final class SocketPath implements AutoCloseable {

    /** The longest path a Unix socket address takes ({@code sun_path}, less its NUL). */
    static final int MAX_PATH_BYTES = 107;

    private static final int ROOT = 0;

    private final Path path;
    private final SocketLock lock;

    private SocketPath(Path path, SocketLock lock) {
        this.path = path;
        this.lock = lock;
    }

    public Path path() {
        return path;
    }

    /**
     * Checks {@code given} and its folder, creating the folder if missing, locks {@code PATH.lock} and removes a
     * stale socket. The caller closes the result when {@code serve} ends, after the socket is removed.
     *
     * @throws OutputPathException naming what is wrong and the fix
     */
    public static SocketPath prepare(Path given) throws OutputPathException {
        Path path = given.toAbsolutePath().normalize();
        if (path.toString().getBytes(StandardCharsets.UTF_8).length > MAX_PATH_BYTES) {
            throw new OutputPathException("--socket " + given + " is longer than the " + MAX_PATH_BYTES + " bytes a"
                    + " Unix socket's path may have; give a shorter path, e.g. in $XDG_RUNTIME_DIR or /tmp");
        }
        try {
            checkFolder(given, path.getParent());
        } catch (IOException e) {
            throw new OutputPathException("--socket " + given + ": " + FileErrors.describe(e) + "; give a path in a"
                    + " folder of your own");
        }
        // held from here to the end: no other serve decides about this path meanwhile
        SocketLock lock = SocketLock.acquire(given, path);
        try {
            removeStale(given, path);
        } catch (OutputPathException | RuntimeException e) {
            lock.close();
            throw e;
        }
        return new SocketPath(path, lock);
    }

    /** With the lock held: refuses what is not a socket and a socket that answers, removes one that does not. */
    private static void removeStale(Path given, Path path) throws OutputPathException {
        try {
            PathKind kind = PathKind.of(path);
            if (kind == PathKind.SOCKET) {
                if (answers(path)) {
                    throw new OutputPathException("--socket " + given + ": another archpool serve is listening on"
                            + " that socket; stop it with 'archpool serve --socket " + given + " --stop', or give"
                            + " another path");
                }
                Files.delete(path); // stale: its serve died without removing it
            } else if (kind != PathKind.MISSING) {
                throw new OutputPathException("--socket " + given + " is " + kind.words() + ", not a socket; serve"
                        + " replaces only a stale socket of its own: remove it, or give another path");
            }
        } catch (IOException e) {
            throw new OutputPathException("--socket " + given + ": " + FileErrors.describe(e) + "; give a path in a"
                    + " folder of your own");
        }
    }

    /** Binds the socket, mode 0600. */
    public ServerSocketChannel bind() throws OutputPathException {
        try {
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                server.bind(UnixDomainSocketAddress.of(path));
                Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
            } catch (IOException e) {
                server.close();
                throw e;
            }
            return server;
        } catch (IOException e) {
            throw new OutputPathException("cannot listen on --socket " + path + ": " + FileErrors.describe(e)
                    + "; give a path in a folder of your own that you can write");
        }
    }

    /** Releases {@code PATH.lock} (the file stays); call it after {@link #remove()}. */
    @Override
    public void close() {
        lock.close();
    }

    /** Removes the socket, if it is still a socket (the lock, still held, says it is this serve's). */
    public void remove() {
        try {
            if (PathKind.of(path) == PathKind.SOCKET) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            // the folder is gone or unreadable: nothing of ours is left to remove there
        }
    }

    private static void checkFolder(Path given, Path folder) throws IOException, OutputPathException {
        int me = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid", LinkOption.NOFOLLOW_LINKS);
        checkAbove(given, folder.getParent(), me);
        if (PathKind.of(folder) == PathKind.MISSING) {
            Files.createDirectories(folder, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
            // the umask may have narrowed it further, never widened it; say it exactly
            Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwx------"));
            return;
        }
        if (PathKind.followed(folder) != PathKind.FOLDER) {
            throw new OutputPathException("--socket " + given + ": " + folder + " is not a folder; give a path in a"
                    + " folder of your own");
        }
        int owner = (Integer) Files.getAttribute(folder, "unix:uid");
        if (owner != me) {
            throw new OutputPathException("--socket " + given + ": its folder " + folder + " belongs to another user"
                    + " (uid " + owner + "), who could replace the socket; give a path in a folder of your own, e.g."
                    + " $XDG_RUNTIME_DIR/archpool/serve.sock (created with mode 0700 when missing)");
        }
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(folder);
        Set<PosixFilePermission> open = Set.of(PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
                PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE,
                PosixFilePermission.OTHERS_EXECUTE);
        if (perms.stream().anyMatch(open::contains)) {
            throw new OutputPathException("--socket " + given + ": its folder " + folder + " has mode "
                    + PosixFilePermissions.toString(perms) + ", so other users may enter it and connect; make it"
                    + " private (chmod 700 " + folder + ") or give a path in a folder only you may enter (a missing"
                    + " one is created with mode 0700)");
        }
    }

    /**
     * Every existing folder above the socket's, up to {@code /}, as OpenSSH checks the path of
     * {@code authorized_keys}: owned by this user or root, and writable by no one else, unless it is root's and
     * sticky (as {@code /tmp} is: there only an entry's owner may rename it). Otherwise another user could rename
     * the socket's folder away and put one of their own, with their own {@code serve} in it, in its place. A link
     * is a component as any other: its own owner counts, and the walk goes on from the folder that holds it.
     */
    private static void checkAbove(Path given, Path start, int me) throws IOException, OutputPathException {
        for (Path above = start; above != null; above = above.getParent()) {
            if (PathKind.of(above) == PathKind.MISSING) {
                continue; // created below with mode 0700, by this user
            }
            Map<String, Object> attributes = Files.readAttributes(above, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS);
            int owner = (Integer) attributes.get("uid");
            int mode = (Integer) attributes.get("mode");
            if (owner != me && owner != ROOT) {
                throw new OutputPathException("--socket " + given + ": " + above + ", a folder above the socket's,"
                        + " belongs to another user (uid " + owner + "), who could rename the socket's folder and put"
                        + " one with their own serve in its place; give a path under folders only you or root own,"
                        + " e.g. $XDG_RUNTIME_DIR/archpool/serve.sock");
            }
            boolean othersWrite = (mode & 0022) != 0;
            boolean rootSticky = owner == ROOT && (mode & 01000) != 0;
            if (othersWrite && !rootSticky) {
                throw new OutputPathException("--socket " + given + ": " + above + ", a folder above the socket's,"
                        + " has mode " + String.format("%04o", mode & 07777) + ": other users may write to it, rename"
                        + " the socket's folder and put one with their own serve in its place; remove their write"
                        + " permission (chmod go-w " + above + ") or give a path under folders only you or root may"
                        + " change, e.g. $XDG_RUNTIME_DIR/archpool/serve.sock");
            }
        }
    }

    /** Whether a server accepts connections on the socket at {@code path}. */
    static boolean answers(Path path) {
        try (SocketChannel probe = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
