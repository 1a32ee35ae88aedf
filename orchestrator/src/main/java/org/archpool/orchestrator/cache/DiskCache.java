package org.archpool.orchestrator.cache;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileSystemException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.archpool.worker.exec.ProcessIds;

/**
 * The cache in a folder of this machine: {@code ac/xx/<key>}, {@code cas/xx/<sha256>} (sharded by the first two
 * hex digits), {@code tmp/} for files being written and {@code file-hashes} for {@link FileHashes}. The folder is
 * created with mode 0700; a folder, entry or blob owned by another user is not trusted. Every file is written under
 * a temporary name in {@code tmp/} and renamed into place, so a reader, another build or a build killed half-way
 * never sees part of one. An entry's and a blob's modification time is set when it is used: {@code archpool cache
 * prune} removes the least recently used first.
 */
public final class DiskCache implements CacheBackend {

    private static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rwx------");

    private final Path root;
    private final Clock clock;
    private final long uid;

    private DiskCache(Path root, Clock clock, long uid) {
        this.root = root;
        this.clock = clock;
        this.uid = uid;
    }

    /**
     * Opens (and creates, mode 0700) the cache folder {@code root}.
     *
     * @throws CacheSetupException when it is not a folder, belongs to another user, or others may write to it
     */
    public static DiskCache open(Path root, Clock clock) throws CacheSetupException {
        Path dir = root.toAbsolutePath().normalize();
        long uid = ProcessIds.current().uid();
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(dir)) {
                Files.createDirectories(dir.getParent());
                try {
                    Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PRIVATE));
                } catch (FileAlreadyExistsException e) {
                    // made by a build at the same moment: checked below like any other
                }
            }
            if (!Files.isDirectory(dir)) {
                throw new CacheSetupException("the cache folder " + dir + " is not a folder; pass --cache with a"
                        + " folder of your own (it is created if missing), or --no-cache");
            }
            Path real = dir.toRealPath();
            long owner = ((Number) Files.getAttribute(real, "unix:uid")).longValue();
            if (owner != uid) {
                throw new CacheSetupException("the cache folder " + dir + " belongs to user id " + owner + ", not to"
                        + " you (" + uid + "), so nothing in it can be trusted; pass --cache with a folder of your"
                        + " own, or --no-cache");
            }
            int mode = (Integer) Files.getAttribute(real, "unix:mode");
            if ((mode & 0022) != 0) {
                throw new CacheSetupException("the cache folder " + dir + " may be written by other users (mode "
                        + Integer.toOctalString(mode & 0777) + "), so nothing in it can be trusted; make it"
                        + " private (chmod 700 " + dir + ") or pass --cache with another folder");
            }
            for (String sub : new String[] {"ac", "cas", "tmp"}) {
                Path p = real.resolve(sub);
                if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    try {
                        Files.createDirectory(p, PosixFilePermissions.asFileAttribute(PRIVATE));
                    } catch (FileAlreadyExistsException e) {
                        // a concurrent build made it
                    } catch (FileSystemException e) {
                        // a read-only cache: entries can still be read; writes fail and are reported then
                    }
                }
            }
            return new DiskCache(real, clock, uid);
        } catch (IOException e) {
            throw new CacheSetupException("the cache folder " + dir + " cannot be used: " + e.getMessage()
                    + "; pass --cache with a folder you can write, or --no-cache");
        }
    }

    public Path root() {
        return root;
    }

    /** The file {@link FileHashes} keeps in this cache. */
    public Path fileHashes() {
        return root.resolve("file-hashes");
    }

    /** The file {@link ToolVersions} keeps in this cache. */
    Path toolVersions() {
        return root.resolve("tool-versions");
    }

    Path actionPath(String key) {
        return root.resolve("ac").resolve(key.substring(0, 2)).resolve(key);
    }

    Path blobPath(String sha256) {
        return root.resolve("cas").resolve(sha256.substring(0, 2)).resolve(sha256);
    }

    @Override
    public byte[] readAction(String key) throws IOException {
        Path p = actionPath(key);
        if (!trusted(p)) {
            return null;
        }
        byte[] bytes = Files.readAllBytes(p);
        touch(p);
        return bytes;
    }

    @Override
    public void writeAction(String key, byte[] entry) throws IOException {
        Path tmp = temporary();
        try {
            Files.write(tmp, entry, StandardOpenOption.WRITE);
            place(tmp, actionPath(key));
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    @Override
    public boolean readBlob(String sha256, long size, Path into) throws IOException {
        Path p = blobPath(sha256);
        if (!trusted(p)) {
            return false;
        }
        long copied = 0;
        try (InputStream in = Files.newInputStream(p, LinkOption.NOFOLLOW_LINKS);
             OutputStream out = Files.newOutputStream(into, StandardOpenOption.CREATE_NEW)) {
            byte[] buffer = new byte[64 * 1024];
            while (copied <= size) { // one byte beyond the size at most, enough to tell a longer blob
                int n = in.read(buffer, 0, (int) Math.min(buffer.length - 1, size - copied) + 1);
                if (n < 0) {
                    break;
                }
                out.write(buffer, 0, n);
                copied += n;
            }
        } catch (NoSuchFileException e) {
            if (e.getFile() != null && e.getFile().equals(p.toString())) {
                return false; // pruned a moment ago
            }
            throw e;
        }
        if (copied != size) {
            Files.deleteIfExists(into);
            throw new WrongSize(p + (copied > size ? " is longer than " : " is only " + copied + " bytes long, not ")
                    + size + " bytes, the size its entry records");
        }
        touch(p);
        return true;
    }

    @Override
    public boolean hasBlob(String sha256) {
        return trusted(blobPath(sha256));
    }

    @Override
    public void writeBlob(String sha256, Path from) throws IOException {
        Path target = blobPath(sha256);
        if (trusted(target)) {
            touch(target);
            return;
        }
        Path tmp = temporary();
        try {
            Files.copy(from, tmp, StandardCopyOption.REPLACE_EXISTING);
            String digest = Digests.ofFile(tmp);
            if (!digest.equals(sha256)) {
                throw new IOException(from + " changed while it was stored (its digest is now " + digest + ")");
            }
            place(tmp, target);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    @Override
    public void removeAction(String key) throws IOException {
        Files.deleteIfExists(actionPath(key));
    }

    /** Removes a blob found damaged, so that the next store writes it again. */
    void removeBlob(String sha256) throws IOException {
        Files.deleteIfExists(blobPath(sha256));
    }

    @Override
    public String describe() {
        return root.toString();
    }

    /** A regular file (not a link) of this user's: anything else in the cache is treated as absent. */
    private boolean trusted(Path p) {
        try {
            Object owner = Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            return Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) && ((Number) owner).longValue() == uid;
        } catch (IOException e) {
            return false;
        }
    }

    private Path temporary() throws IOException {
        Path tmp = root.resolve("tmp").resolve(ProcessHandle.current().pid() + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        return tmp;
    }

    private static void place(Path tmp, Path target) throws IOException {
        Path shard = target.getParent();
        if (!Files.isDirectory(shard, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectory(shard, PosixFilePermissions.asFileAttribute(PRIVATE));
            } catch (FileAlreadyExistsException e) {
                // another build made it
            }
        }
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private void touch(Path p) {
        try {
            Files.setLastModifiedTime(p, FileTime.fromMillis(clock.millis()));
        } catch (IOException e) {
            // a read-only cache: its order for pruning stays as it was
        }
    }
}
