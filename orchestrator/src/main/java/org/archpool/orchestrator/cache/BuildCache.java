package org.archpool.orchestrator.cache;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.archpool.orchestrator.tool.ToolRunner;
import org.archpool.orchestrator.toolchain.ConcreteJob;
import org.archpool.orchestrator.verify.ArtifactJudge;
import org.archpool.orchestrator.verify.Verdict;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;
import org.archpool.worker.ArtifactRules;
import org.archpool.worker.exec.ChildEnvironment;
import org.archpool.worker.inspect.GpuCodeInspector;

/**
 * The build cache of one build or {@code serve}: looks each job up before it is sent to a worker, and stores each
 * one that succeeded. A hit is never taken on trust ({@link EntryRestorer}): its artifacts are read again and judged
 * strictly against the target, whatever {@code --verify} says for fresh builds; a damaged or mismatched entry is
 * evicted and the job rebuilt. The cache never costs a job its outcome: a folder or server that fails is reported
 * once, and the build goes on without it.
 */
public final class BuildCache implements AutoCloseable {

    private final DiskCache local;
    private final CacheBackend remote;
    private final boolean remoteWrites;
    /** Each platform's toolchain identity, taken when the first job with a key for it is looked up. */
    private final Map<Platform, Supplier<ToolchainIdentity>> toolchains = new EnumMap<>(Platform.class);
    private final FileHashes hashes;
    private final JobInputs inputs;
    private final ToolRunner tools;
    private final String path;
    private final Map<String, String> environment;
    private final ArtifactJudge strict;
    private final EntryRestorer restorer;
    private final Clock clock;
    private final Consumer<String> notes;
    /** Blobs the remote holds under a digest their bytes do not have: stored again, never taken as present. */
    private final Set<String> damagedRemoteBlobs = ConcurrentHashMap.newKeySet();
    private volatile boolean remoteUp = true;
    private volatile boolean localWritable = true;

    /**
     * @param remote       the remote cache, or null
     * @param remoteWrites whether jobs built here are stored on the remote ({@code --remote-cache-read-only} off)
     * @param toolchain    the toolchain's identity, asked for when the first job with a key is looked up (a build of
     *                     uncacheable jobs never runs the tools' {@code --version}), then kept
     * @param environment  the environment jobs inherit: the {@code PATH} their programs are found on, and the values of
     *                     the variables their CMake files read
     * @param strict       judges restored GPU code: strict verification at least, whatever {@code --verify} says
     * @param tools        runs {@code ninja -t deps} for what a {@code cmake} job's build read ({@link BuildReads})
     * @param notes        told once of a cache that stopped working, for the console and the coordinator's log
     */
    public BuildCache(DiskCache local, CacheBackend remote, boolean remoteWrites,
                      Function<Platform, ToolchainIdentity> toolchain, FileHashes hashes,
                      Map<String, String> environment, ArtifactJudge strict, ToolRunner tools, Clock clock,
                      Consumer<String> notes) {
        this.local = local;
        this.remote = remote;
        this.remoteWrites = remoteWrites;
        for (Platform platform : Platform.values()) {
            this.toolchains.put(platform, memoized(() -> toolchain.apply(platform)));
        }
        this.hashes = hashes;
        this.inputs = new JobInputs(hashes);
        this.tools = tools;
        this.path = environment.get("PATH");
        this.environment = Map.copyOf(environment);
        this.strict = strict;
        this.restorer = new EntryRestorer(new GpuCodeInspector(), strict);
        this.clock = clock;
        this.notes = notes;
    }

    /** Where the local cache is, for the report. */
    public String folder() {
        return local.describe();
    }

    /** The remote cache, for the report (never with credentials); null when there is none. */
    public String remote() {
        return remote == null ? null : remote.describe();
    }

    /**
     * Looks the job up; on a hit its artifacts are in place and {@code logFile} holds the log of the build that
     * made them. An entry whose {@link ReadSet} names a file that changed is a miss that says which, and is kept.
     */
    public CacheLookup lookup(ConcreteJob concrete, Path logFile) {
        long started = clock.millis();
        JobSpec job = concrete.job();
        Target target = concrete.target();
        JobInputs.Digest digest = inputs.digest(job);
        if (digest instanceof JobInputs.Digest.Unavailable u) {
            return new CacheLookup.Uncacheable(u.reason());
        }
        String program = job instanceof CommandJob c ? ToolchainIdentity.program(c.argv().get(0), path, hashes) : null;
        JobInputs.Digest.Of read = (JobInputs.Digest.Of) digest;
        ActionKey key = ActionKey.of(concrete, target, toolchains.get(target.platform()).get(), read.sha256(), program,
                environmentRead(concrete, read.environmentRead()));
        String rejected = null;
        String outdated = null;
        byte[] bytes = readAction(local, key.sha256(), false);
        if (bytes != null) {
            try {
                Restored r = restore(job, target, key, bytes, local::readBlob, logFile, false);
                return new CacheLookup.Hit(key, r.artifacts(), false, clock.millis() - started);
            } catch (Outdated o) {
                outdated = o.getMessage();
            } catch (EntryRestorer.Refused r) {
                rejected = r.getMessage();
                evict(local, key.sha256(), r.damagedBlob);
            } catch (IOException e) {
                rejected = "the entry could not be restored: " + e.getMessage();
                evict(local, key.sha256(), null);
            }
        }
        if (remote != null && remoteUp) {
            bytes = readAction(remote, key.sha256(), true);
            if (bytes != null) {
                try {
                    Restored r = restore(job, target, key, bytes, this::remoteBlob, logFile, true);
                    keepLocally(key, bytes, r.entry());
                    return new CacheLookup.Hit(key, r.artifacts(), true, clock.millis() - started);
                } catch (Outdated o) {
                    outdated = outdated == null ? o.getMessage() : outdated;
                } catch (EntryRestorer.Refused r) {
                    rejected = (rejected == null ? "" : rejected + "; and the remote's: ") + r.getMessage();
                    if (r.damagedBlob != null) {
                        damagedRemoteBlobs.add(r.damagedBlob);
                    }
                    if (remoteWrites) {
                        evict(remote, key.sha256(), null);
                    }
                } catch (IOException e) {
                    rejected = (rejected == null ? "" : rejected + "; and the remote's: ")
                            + "the remote entry could not be restored: " + e.getMessage();
                }
            }
        }
        return new CacheLookup.Miss(key, target, rejected, outdated);
    }

    private record Restored(ActionEntry entry, List<Artifact> artifacts) {
    }

    /**
     * A sound entry that is not used: a file its build read outside the key is not what it was ({@link ReadSet}). It
     * is not evicted (the job's next build writes over it; a file changed back makes it a hit again).
     */
    private static final class Outdated extends Exception {
        Outdated(String change) {
            super(change);
        }
    }

    /** Each of {@code names} with the value the job's processes get (null for none), as a worker gives it them. */
    private Map<String, String> environmentRead(ConcreteJob concrete, Set<String> names) {
        if (names.isEmpty()) {
            return Map.of();
        }
        Map<String, String> seen = ChildEnvironment.forStep(environment, concrete.steps().get(0).env());
        Map<String, String> values = new HashMap<>();
        names.forEach(name -> values.put(name, seen.get(name)));
        return values;
    }

    private Restored restore(JobSpec job, Target target, ActionKey key, byte[] bytes, EntryRestorer.BlobSource blobs,
                                Path logFile, boolean remoteEntry)
            throws EntryRestorer.Refused, Outdated, IOException {
        ActionEntry entry;
        try {
            entry = ActionEntry.fromJson(bytes, key.sha256());
        } catch (IOException e) {
            throw new EntryRestorer.Refused(e.getMessage(), null);
        }
        List<String> archs = List.copyOf(new TreeSet<>(target.archs()));
        if (!target.platform().wireName().equals(entry.platform()) || !archs.equals(entry.archs())) {
            throw new EntryRestorer.Refused("the entry was stored for " + entry.platform() + " " + entry.archs()
                    + ", not for this build's target " + target.platform().wireName() + " " + archs, null);
        }
        if (job instanceof CmakeJob && entry.reads() == null) {
            throw new EntryRestorer.Refused("the entry of a cmake job does not record what its build read", null);
        }
        if (entry.reads() != null) {
            Optional<String> change = entry.reads().firstChange(hashes);
            if (change.isPresent()) {
                throw new Outdated(change.get());
            }
        }
        List<Artifact> restored = restorer.restore(job, target, entry, blobs);
        String header = "archpool: " + job.id() + " restored from the " + (remoteEntry ? "remote " : "")
                + "cache (key " + key.sha256() + "), built by job " + entry.jobId() + " at "
                + Instant.ofEpochMilli(entry.createdAtMs()) + " in " + entry.buildMs() + " ms" + phases(entry)
                + "; its log follows\n";
        EntryRestorer.restoreLog(header, entry, blobs, logFile);
        return new Restored(entry, restored);
    }

    /**
     * Stores a job that succeeded and passed its verification; its artifacts must also pass strict verification
     * and have been read completely, since a hit is judged that way. A {@code cmake} job is stored with its
     * {@link ReadSet}, the files its build read outside its source and build folders ({@link BuildReads}), or not at
     * all when that cannot be known.
     *
     * @param buildMs how long the job took, recorded for the logs of later hits
     * @param phaseMs how long each of its phases took, in order
     */
    public CacheResult store(CacheLookup.Miss miss, JobSpec job, List<Artifact> artifacts, long buildMs,
                             Map<String, Long> phaseMs, Path logFile) {
        String key = miss.key().sha256();
        Target target = miss.target();
        String reason = notStorable(job, target, artifacts);
        if (reason != null) {
            return CacheResult.built(miss, false, join(miss.note(), "not stored: " + reason));
        }
        if (!localWritable) {
            return CacheResult.built(miss, false, join(miss.note(), "not stored: the cache folder cannot be written"));
        }
        ReadSet read = null;
        if (job instanceof CmakeJob cmake) {
            BuildReads.Found found = BuildReads.collect(cmake, tools);
            if (found instanceof BuildReads.Found.Unknown u) {
                return CacheResult.built(miss, false, join(miss.note(), "not stored: " + u.reason()));
            }
            try {
                BuildReads.Found.Files files = (BuildReads.Found.Files) found;
                Set<Path> paths = new TreeSet<>(files.paths());
                Path buildDir = BuildReads.buildDir(cmake);
                List<Path> includeFolders = files.includeFolders();
                List<Path> excluded = List.of(Path.of(cmake.sourceDir()), buildDir);
                if (target.platform() == Platform.HIP) {
                    // clang's depfile names only the host pass's headers: a device-only one would be missed
                    paths.addAll(IncludeFolders.filesUnder(includeFolders, excluded));
                }
                Optional<Path> edited = ReadSet.changedSince(paths, clock.millis() - buildMs);
                if (edited.isPresent()) {
                    return CacheResult.built(miss, false, join(miss.note(), "not stored: " + edited.get()
                            + ", which its build read, changed while it built"));
                }
                read = ReadSet.hash(paths, hashes).withShadows(ShadowProbes.of(includeFolders, paths, excluded));
            } catch (NoSuchFileException e) {
                return CacheResult.built(miss, false, join(miss.note(), "not stored: " + e.getFile()
                        + ", which its build read, is gone"));
            } catch (IOException e) {
                return CacheResult.built(miss, false, join(miss.note(), "not stored: a file its build read could not"
                        + " be hashed (" + e.getMessage() + ")"));
            }
        }
        List<ActionEntry.StoredArtifact> stored = new ArrayList<>();
        ActionEntry entry;
        byte[] json;
        try {
            for (Artifact a : artifacts) {
                Path file = Path.of(a.path());
                String digest = Digests.ofFile(file);
                local.writeBlob(digest, file);
                stored.add(new ActionEntry.StoredArtifact(a.path(), digest, Files.size(file),
                        Files.isExecutable(file), a.archs(), a.hostcallKernels()));
            }
            ActionEntry.Blob log = null;
            if (logFile != null && Files.isRegularFile(logFile, LinkOption.NOFOLLOW_LINKS)) {
                String digest = Digests.ofFile(logFile);
                local.writeBlob(digest, logFile);
                log = new ActionEntry.Blob(digest, Files.size(logFile));
            }
            entry = new ActionEntry(ActionKey.VERSION, key, job.id(), target.platform().wireName(),
                    List.copyOf(new TreeSet<>(target.archs())), clock.millis(), buildMs, phaseMs, stored,
                    log, read);
            json = entry.toJson();
            if (json.length > ActionEntry.MAX_BYTES) {
                // no cache would hand it back: a remote's answer is cut off at that size
                return CacheResult.built(miss, false, join(miss.note(), "not stored: its entry would be "
                        + json.length + " bytes, more than the " + ActionEntry.MAX_BYTES + " an entry may have"));
            }
            local.writeAction(key, json);
        } catch (IOException | RuntimeException e) {
            localFailed(e);
            return CacheResult.built(miss, false, join(miss.note(), "not stored: " + e.getMessage()));
        }
        if (remote != null && remoteWrites && remoteUp) {
            try {
                for (ActionEntry.StoredArtifact a : stored) {
                    storeRemoteBlob(a.sha256(), Path.of(a.path()));
                }
                if (entry.log() != null) {
                    storeRemoteBlob(entry.log().sha256(), logFile);
                }
                remote.writeAction(key, json);
            } catch (IOException e) {
                remoteFailed(e);
            }
        }
        return CacheResult.built(miss, true, miss.note());
    }

    /**
     * Sends a blob the remote does not have, or has damaged: a blob found damaged is written over, since asking the
     * server whether it has it would say yes, and every later build would refuse the entry again.
     */
    private void storeRemoteBlob(String sha256, Path from) throws IOException {
        if (damagedRemoteBlobs.contains(sha256) || !remote.hasBlob(sha256)) {
            remote.writeBlob(sha256, from);
            damagedRemoteBlobs.remove(sha256);
        }
    }

    /**
     * Why a succeeded job's artifacts cannot be stored, or null when they can: among others, artifacts that a restore
     * would refuse (outside the job's output folder, say, as the output of {@code -o ../k.o} is).
     */
    private String notStorable(JobSpec job, Target target, List<Artifact> artifacts) {
        Optional<String> foreign = ArtifactRules.of(job).refusal(artifacts.stream().map(Artifact::path).toList());
        if (foreign.isPresent()) {
            return "its artifacts are not what a restore would accept: " + foreign.get();
        }
        for (Artifact a : artifacts) {
            if (a.problem() != null) {
                return a.path() + " could not be read completely (" + a.problem() + ")";
            }
            if (!Files.isRegularFile(Path.of(a.path()), LinkOption.NOFOLLOW_LINKS)) {
                return a.path() + " is no longer a regular file";
            }
        }
        Verdict verdict = strict.judge(job, target, artifacts);
        return verdict.passed() ? null : "its GPU code does not pass strict verification (" + verdict.failure() + ")";
    }

    private byte[] readAction(CacheBackend backend, String key, boolean isRemote) {
        try {
            return backend.readAction(key);
        } catch (IOException e) {
            if (isRemote) {
                remoteFailed(e);
            }
            return null;
        }
    }

    /**
     * A blob of a remote entry; also kept in the local cache (the job's log, too, which is not restored to a file of
     * its own), unless its bytes do not match its digest, which the restorer then finds and says. One of another size
     * than {@code size} is cut off and refused as damaged; it does not turn the remote off.
     */
    private boolean remoteBlob(String sha256, long size, Path into) throws IOException {
        boolean found;
        try {
            found = remote.readBlob(sha256, size, into);
        } catch (CacheBackend.WrongSize e) {
            throw e; // a damaged blob, which the restorer refuses and the next store sends again; the remote is up
        } catch (IOException e) {
            remoteFailed(e);
            throw e;
        }
        if (found && localWritable) {
            try {
                local.writeBlob(sha256, into);
            } catch (IOException e) {
                // damaged (refused when it is checked), or the folder is full: the next build asks the remote again
            }
        }
        return found;
    }

    /**
     * A remote hit is also kept in the local cache, so that the next build finds it here: its blobs were kept as they
     * were fetched ({@link #remoteBlob}), so only the entry is written, and only when every one of them is here.
     */
    private void keepLocally(ActionKey key, byte[] bytes, ActionEntry entry) {
        if (!localWritable) {
            return;
        }
        try {
            for (ActionEntry.StoredArtifact a : entry.artifacts()) {
                if (!local.hasBlob(a.sha256())) {
                    return; // not kept (a full folder): the next build asks the remote again
                }
            }
            local.writeAction(key.sha256(), bytes);
        } catch (IOException e) {
            // the next build asks the remote again
        }
    }

    private void evict(CacheBackend backend, String key, String damagedBlob) {
        try {
            backend.removeAction(key);
            if (damagedBlob != null && backend instanceof DiskCache disk) {
                disk.removeBlob(damagedBlob);
            }
        } catch (IOException e) {
            // a read-only cache keeps the entry; it is refused again next time, never used
        }
    }

    /** Said once, however many slots were storing when the folder failed. */
    private synchronized void localFailed(Exception e) {
        if (localWritable) {
            localWritable = false;
            notes.accept("archpool: the cache folder " + local.describe() + " cannot be written (" + e.getMessage()
                    + "); jobs are built as usual and not stored (free space, or make it writable)");
        }
    }

    private synchronized void remoteFailed(IOException e) {
        if (remoteUp) {
            remoteUp = false;
            notes.accept("archpool: the remote cache " + remote.describe() + " failed (" + e.getMessage()
                    + "); the rest of this build uses the local cache only");
        }
    }

    private static <T> Supplier<T> memoized(Supplier<T> supplier) {
        return new Supplier<>() {
            private T value;

            @Override
            public synchronized T get() {
                if (value == null) {
                    value = supplier.get();
                }
                return value;
            }
        };
    }

    private static String phases(ActionEntry entry) {
        if (entry.phaseMs().isEmpty()) {
            return "";
        }
        StringBuilder text = new StringBuilder(" (");
        entry.phaseMs().forEach((phase, ms) -> text.append(text.length() > 2 ? ", " : "").append(phase).append(' ')
                .append(ms).append(" ms"));
        return text.append(')').toString();
    }

    private static String join(String first, String second) {
        return first == null ? second : first + "; " + second;
    }

    /** Keeps the file digests learnt by this build for the next one. */
    @Override
    public void close() {
        try {
            hashes.save();
        } catch (IOException e) {
            // the next build hashes its inputs again
        }
    }
}
