package org.archpool.orchestrator.cache;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The files a build read that its key does not cover (for a {@code cmake} job: those outside its {@code sourceDir}
 * and its build folder, as {@link BuildReads} finds them), each with the SHA-256 it had when the entry was stored.
 * A hit is taken only while every one of them still has that digest, and no new file appeared where it would take
 * the place of a header read ({@link ShadowProbes}; {@link #firstChange}).
 *
 * @param files   sorted by path, each listed once
 * @param shadows where no new header may appear
 */
public record ReadSet(List<Read> files, ShadowProbes shadows) {

    /** One file the build read: its absolute path as the build named it, and the digest of what it leads to. */
    public record Read(String path, String sha256) {
        public Read {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(sha256, "sha256");
        }
    }

    public ReadSet {
        files = files == null ? List.of() : List.copyOf(files);
        shadows = shadows == null ? ShadowProbes.NONE : shadows;
    }

    /** The same files, and the places where no new header may appear. */
    public ReadSet withShadows(ShadowProbes probes) {
        return new ReadSet(files, probes);
    }

    /**
     * The digests of {@code paths} now.
     *
     * @throws IOException when one cannot be read ({@link NoSuchFileException} for one that is gone)
     */
    public static ReadSet hash(Collection<Path> paths, FileHashes hashes) throws IOException {
        List<Read> files = new ArrayList<>();
        for (Path path : new TreeSet<>(paths)) {
            files.add(new Read(path.toString(), digest(path, hashes)));
        }
        return new ReadSet(files, ShadowProbes.NONE);
    }

    /**
     * The first of {@code paths} that changed (its inode's change time) after {@code sinceMs}, the time the build
     * began: its digest, taken now, may not be what the build read, so nothing may be stored (ccache's guard
     * against a file edited while it compiles). A file that is gone counts as changed.
     */
    public static Optional<Path> changedSince(Collection<Path> paths, long sinceMs) {
        for (Path path : paths) {
            try {
                FileTime changed = (FileTime) Files.getAttribute(path, "unix:ctime");
                if (changed.toMillis() >= sinceMs) {
                    return Optional.of(path);
                }
            } catch (IOException e) {
                return Optional.of(path);
            }
        }
        return Optional.empty();
    }

    /**
     * The first recorded file whose contents are not what they were, as the reason for a miss ({@code <path>
     * changed}, {@code <path> is gone}, {@code <path> cannot be read: …}); empty when none changed.
     */
    public Optional<String> firstChange(FileHashes hashes) {
        for (Read read : files) {
            try {
                if (!digest(Path.of(read.path()), hashes).equals(read.sha256())) {
                    return Optional.of(read.path() + " changed");
                }
            } catch (NoSuchFileException e) {
                return Optional.of(read.path() + " is gone");
            } catch (IOException e) {
                return Optional.of(read.path() + " cannot be read: " + e.getMessage());
            }
        }
        return shadows.firstAppeared();
    }

    /** Whether every path is absolute and every digest one, as an entry read from a cache must have them. */
    @JsonIgnore
    public boolean isWellFormed() {
        return files.stream().allMatch(r -> r.path().startsWith("/") && Digests.isDigest(r.sha256()))
                && shadows.folders().stream().allMatch(f -> f.startsWith("/"))
                && shadows.present().stream().allMatch(f -> f.startsWith("/"))
                && shadows.names().stream().allMatch(n -> !n.startsWith("/") && !Path.of(n).normalize()
                .startsWith("..") && !n.isEmpty());
    }

    /**
     * The digest of what {@code path} leads to: a link is followed to its file, since {@link FileHashes} remembers a
     * file by its own stat, which a link's stat would not change with.
     */
    private static String digest(Path path, FileHashes hashes) throws IOException {
        return hashes.digest(path.toRealPath());
    }
}
