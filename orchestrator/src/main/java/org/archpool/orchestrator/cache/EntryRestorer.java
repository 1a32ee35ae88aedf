package org.archpool.orchestrator.cache;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.archpool.orchestrator.verify.ArtifactJudge;
import org.archpool.orchestrator.verify.Verdict;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Target;
import org.archpool.worker.ArtifactRules;
import org.archpool.worker.exec.JobLog;
import org.archpool.worker.inspect.GpuCode;
import org.archpool.worker.inspect.GpuCodeInspector;

/**
 * Puts an entry's artifacts in place, or nothing. First, without touching a file, the entry's paths must be what the
 * job's own artifact rules would collect ({@link ArtifactRules}: in its output folder, matching its globs, the
 * outputs its argv names, every file the rules require), and no folder on the way from the output folder to an
 * artifact may be a link: an entry, local or remote, can only write the files the job itself would have written.
 * Then each blob is copied to a temporary file beside its artifact's path, no further than the size the entry records
 * (one of another size is refused as damaged), and its digest checked on the way; every copy is read again by the
 * GPU-code inspector, whose findings must be what the entry recorded and must pass the strict judge against the
 * target; only then are the copies renamed over their paths. Any failure removes every copy and every folder the
 * restore created, and says why, and no file of the job is touched.
 */
final class EntryRestorer {

    /** Where a blob comes from: the backend that held the entry, or the local cache first. */
    interface BlobSource {
        /**
         * Copies the blob, which its entry records as {@code size} bytes long, into {@code into} (which does not
         * exist); false when no backend has it.
         *
         * @throws CacheBackend.WrongSize when it is longer or shorter, and nothing of it is left in {@code into}
         */
        boolean copy(String sha256, long size, Path into) throws IOException;
    }

    /** Why an entry cannot be used. */
    static final class Refused extends Exception {
        /** The blob whose bytes did not match its name, to be removed from where it came from; or null. */
        final String damagedBlob;

        Refused(String message, String damagedBlob) {
            super(message);
            this.damagedBlob = damagedBlob;
        }
    }

    private final GpuCodeInspector inspector;
    private final ArtifactJudge strict;

    EntryRestorer(GpuCodeInspector inspector, ArtifactJudge strict) {
        this.inspector = inspector;
        this.strict = strict;
    }

    /** @return the restored artifacts, as the inspector found them */
    List<Artifact> restore(JobSpec job, Target target, ActionEntry entry, BlobSource blobs)
            throws Refused, IOException {
        ArtifactRules rules = ArtifactRules.of(job);
        Optional<String> foreign = rules.refusal(entry.artifacts().stream().map(ActionEntry.StoredArtifact::path)
                .toList());
        if (foreign.isPresent()) {
            throw new Refused("its artifacts are not what this job collects: " + foreign.get(), null);
        }
        for (ActionEntry.StoredArtifact a : entry.artifacts()) {
            requireNoLinkOnTheWay(rules.root(), Path.of(a.path()));
        }
        List<Path> copies = new ArrayList<>();
        List<Path> created = new ArrayList<>();
        boolean restored = false;
        try {
            List<Artifact> found = new ArrayList<>();
            for (ActionEntry.StoredArtifact a : entry.artifacts()) {
                Path path = Path.of(a.path());
                createFolders(path.getParent(), created);
                Path copy = copyBeside(path, a, blobs, copies);
                GpuCode code = inspect(copy, path);
                Artifact artifact = new Artifact(path.toString(), code.archs(),
                        code.problems().isEmpty() ? null : String.join("; ", code.problems()), code.hostcallKernels());
                if (!artifact.archs().equals(a.archs())) {
                    throw new Refused(path + " holds " + show(artifact.archs()) + " but the entry recorded "
                            + show(a.archs()), null);
                }
                found.add(artifact);
            }
            Verdict verdict = strict.judge(job, target, found);
            if (!verdict.passed()) {
                throw new Refused("its GPU code does not pass strict verification against the target: "
                        + verdict.failure(), null);
            }
            for (int i = 0; i < copies.size(); i++) {
                Files.move(copies.get(i), Path.of(entry.artifacts().get(i).path()),
                        StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            }
            copies.clear();
            restored = true;
            return found;
        } finally {
            for (Path copy : copies) {
                Files.deleteIfExists(copy);
            }
            if (!restored) {
                removeEmpty(created);
            }
        }
    }

    /** Refuses a path with a link, or something other than a folder, among its folders below {@code root}. */
    private static void requireNoLinkOnTheWay(Path root, Path path) throws Refused {
        for (Path folder = path.getParent(); !folder.equals(root); folder = folder.getParent()) {
            if (Files.isSymbolicLink(folder)) {
                throw new Refused(folder + " is a link: a restore writes through none", null);
            }
            if (Files.exists(folder, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
                throw new Refused(folder + " is not a folder, where the entry has one", null);
            }
        }
    }

    /** Creates {@code folder} and its missing parents, each added to {@code created}, outermost first. */
    private static void createFolders(Path folder, List<Path> created) throws IOException {
        List<Path> missing = new ArrayList<>();
        for (Path f = folder; f != null && !Files.exists(f, LinkOption.NOFOLLOW_LINKS); f = f.getParent()) {
            missing.add(0, f);
        }
        for (Path f : missing) {
            Files.createDirectory(f);
            created.add(f);
        }
    }

    /** Removes the folders a refused restore created, innermost first, each only while it is empty. */
    private static void removeEmpty(List<Path> created) throws IOException {
        for (int i = created.size() - 1; i >= 0; i--) {
            try {
                Files.deleteIfExists(created.get(i));
            } catch (DirectoryNotEmptyException e) {
                // something else was put there meanwhile: it stays, and so does its folder
            }
        }
    }

    /**
     * Copies the log blob to {@code logFile} after {@code header}; a log that is gone, or whose bytes do not match
     * its digest, is said so.
     */
    static void restoreLog(String header, ActionEntry entry, BlobSource blobs, Path logFile) throws IOException {
        Files.createDirectories(logFile.getParent());
        Path tmp = logFile.resolveSibling(logFile.getFileName() + ".restoring");
        Files.deleteIfExists(tmp);
        try {
            String missing = "archpool: the log of that build is not in the cache\n";
            try {
                if (entry.log() != null && blobs.copy(entry.log().sha256(), entry.log().size(), tmp)
                        && !Digests.ofFile(tmp).equals(entry.log().sha256())) {
                    Files.delete(tmp);
                    missing = "archpool: the log of that build is damaged in the cache (its bytes do not match its"
                            + " digest " + entry.log().sha256() + ")\n";
                }
            } catch (CacheBackend.WrongSize e) {
                missing = "archpool: the log of that build is damaged in the cache (it is not the " + entry.log().size()
                        + " bytes its entry records)\n";
            }
            // as a worker writes a job's log: a link or other non-file at the path is refused, a hard-linked old log
            // is left as it is
            try (JobLog out = JobLog.open(logFile, null, () -> { })) {
                out.write(header.getBytes(StandardCharsets.UTF_8));
                if (Files.exists(tmp, LinkOption.NOFOLLOW_LINKS)) {
                    try (InputStream in = Files.newInputStream(tmp)) {
                        in.transferTo(out);
                    }
                } else {
                    out.write(missing.getBytes(StandardCharsets.UTF_8));
                }
                if (out.failure().isPresent()) {
                    throw out.failure().get();
                }
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The blob of {@code a} copied beside its path, checked; the copy's path is added to {@code copies} first. */
    private Path copyBeside(Path path, ActionEntry.StoredArtifact a, BlobSource blobs, List<Path> copies)
            throws Refused, IOException {
        Path folder = path.getParent();
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new Refused(path + " is a folder now, where the entry has a file", null);
        }
        Path copy = folder.resolve(".archpool-restore-" + Long.toHexString(ThreadLocalRandom.current().nextLong())
                + "-" + path.getFileName());
        copies.add(copy);
        try {
            if (!blobs.copy(a.sha256(), a.size(), copy)) {
                throw new Refused("its blob " + a.sha256() + " (" + path.getFileName() + ") is missing", null);
            }
        } catch (CacheBackend.WrongSize e) {
            throw new Refused("the blob " + a.sha256() + " (" + path.getFileName() + ") is not the size its entry"
                    + " records: " + e.getMessage(), a.sha256());
        }
        String digest = Digests.ofFile(copy);
        if (!digest.equals(a.sha256()) || Files.size(copy) != a.size()) {
            throw new Refused("the blob " + a.sha256() + " (" + path.getFileName() + ") does not match its"
                    + " digest (its bytes hash to " + digest + ")", a.sha256());
        }
        Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString(a.executable() ? "rwxr-xr-x"
                : "rw-r--r--"));
        return copy;
    }

    private GpuCode inspect(Path copy, Path path) throws Refused {
        try {
            return inspector.inspect(copy);
        } catch (IOException | RuntimeException | OutOfMemoryError e) {
            throw new Refused(path + " could not be read again: " + e.getMessage(), null);
        }
    }

    private static String show(List<String> archs) {
        return archs.isEmpty() ? "no GPU code" : String.join(" ", archs);
    }
}
