package org.archpool.orchestrator.service;

import static org.archpool.protocol.UntrustedText.quote;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.archpool.orchestrator.manifest.JobScope;
import org.archpool.orchestrator.manifest.ManifestException;
import org.archpool.orchestrator.manifest.ManifestReader;
import org.archpool.orchestrator.pool.WorkerPool;
import org.archpool.orchestrator.schedule.Attempts;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.orchestrator.schedule.JobStart;
import org.archpool.orchestrator.schedule.Scheduler;
import org.archpool.orchestrator.toolchain.JobTargets;
import org.archpool.orchestrator.toolchain.TargetedJob;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The core of {@code archpool serve}, apart from any transport (docs/service.md): each connection's submits become
 * jobs on the scheduler, named {@code id.N} with {@code N} counting the submits of this service; a submit of a job
 * identical to one queued or running (the same {@link JobSpec} but for its id) shares that build; every accepted
 * submit gets exactly one {@code result}, and a {@code started} before it each time the build's attempt is handed to
 * a worker (a submit that joins a running build is told at once). A cancel ends one submit; the build it shares goes on while another
 * submit still waits for it. A connection that goes away cancels its builds that no other submit waits for.
 * {@link #shutdown} stops taking jobs, cancels them if asked, and {@link #drained()} completes once every build has
 * ended; {@link #bye} then ends every connection. Thread-safe: connections call in from their reader threads,
 * builds end on the scheduler's slot threads.
 */
public final class JobService {

    private static final Logger LOG = LoggerFactory.getLogger(JobService.class);

    /** A job's id is its submitted id, a dot and this service's submit number: at most 128 characters. */
    private static final int MAX_JOB_ID = 128;

    private final Scheduler scheduler;
    private final WorkerPool pool;
    private final ManifestReader reader;
    private final Clock clock;
    private final long origin;
    private final ServerMessage.Hello hello;
    private final List<Target> targets;
    private final Function<Platform, List<String>> builds;
    private final AtomicLong submits = new AtomicLong();
    private final AtomicLong connections = new AtomicLong();

    // guarded by this
    /** Builds not ended, by the job (under a common id) and the target it is built for. */
    private final Map<BuildKey, Build> inFlight = new HashMap<>();
    /** The build folder of each cmake build queued or running: one build at a time in a folder. */
    private final Map<String, Build> buildFolders = new HashMap<>();
    /** Every build not ended: by identity, in one flat table (a hash set spends a node on each of 100,000). */
    private final Set<Build> running = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<Connection> clients = new LinkedHashSet<>();
    private final List<JobOutcome> ended = new ArrayList<>();
    private final Map<String, Integer> outcomes = new LinkedHashMap<>();
    private long accepted;
    private boolean shuttingDown;
    private final CompletableFuture<Void> drained = new CompletableFuture<>();
    private final CompletableFuture<Boolean> shutdownAsked = new CompletableFuture<>();

    /**
     * @param hello   what every connection is told first
     * @param targets the service's targets, one per platform: a submit is built for the one its platforms allow
     * @param builds  for a platform, the concrete architectures {@code all}/{@code all-major} stand for
     */
    public JobService(Scheduler scheduler, WorkerPool pool, ManifestReader reader, Clock clock,
                      ServerMessage.Hello hello, List<Target> targets, Function<Platform, List<String>> builds) {
        this.scheduler = scheduler;
        this.pool = pool;
        this.reader = reader;
        this.clock = clock;
        this.origin = clock.millis();
        this.hello = hello;
        this.targets = List.copyOf(targets);
        this.builds = builds;
        if (this.targets.isEmpty()) {
            throw new IllegalArgumentException("a service needs a target");
        }
    }

    /** What makes two submits one build: the job under a common id, and the target it is built for. */
    private record BuildKey(JobSpec job, Target target) {
    }

    /** One build on the scheduler and the submits that wait for its outcome. */
    private static final class Build {
        final JobSpec job;
        final BuildKey key;
        final String firstClientJobId;
        /** Almost always the one submit that made it: sized for one (a default list holds ten). */
        final List<Submission> waiting = new ArrayList<>(1);
        /** The attempt a worker runs now (the last one handed to a worker), or null while queued. */
        JobStart started;
        boolean cancelled;
        boolean ended;

        Build(JobSpec job, BuildKey key, String firstClientJobId) {
            this.job = job;
            this.key = key;
            this.firstClientJobId = firstClientJobId;
        }
    }

    /** One accepted submit, until its result is sent. */
    private record Submission(Connection client, String clientJobId, boolean shared, Build build, long acceptedAtMs) {
    }

    /**
     * Opens a connection whose replies go to {@code outbox}, and sends it {@code hello}.
     *
     * @param name how the logs name the client, e.g. {@code stdio} or {@code socket client 3}
     */
    public Connection connect(Outbox outbox, String name) {
        Connection c = new Connection(outbox, name + " (" + connections.incrementAndGet() + ")");
        synchronized (this) {
            clients.add(c);
        }
        LOG.info("{} connected", c.name);
        outbox.send(hello);
        return c;
    }

    /** What a shutdown asked for: completes with {@code cancelRunning} when the first shutdown begins. */
    public CompletableFuture<Boolean> shutdownAsked() {
        return shutdownAsked;
    }

    /** Completes once a shutdown has begun and every build has ended. */
    public CompletableFuture<Void> drained() {
        return drained;
    }

    /**
     * Stops taking jobs ({@code shutting-down} from now on); with {@code cancelRunning}, every build not ended is
     * cancelled, for {@code reason}. A later call may still cancel what an earlier one let run.
     */
    public void shutdown(boolean cancelRunning, String reason) {
        List<Build> toCancel;
        synchronized (this) {
            if (!shuttingDown) {
                LOG.info("shutting down ({}){}", reason, cancelRunning ? ", cancelling every job" : "");
            }
            shuttingDown = true;
            toCancel = cancelRunning ? new ArrayList<>(running) : List.of();
            toCancel.forEach(b -> b.cancelled = true);
            checkDrained();
        }
        shutdownAsked.complete(cancelRunning);
        scheduler.cancel(toCancel.stream().map(b -> b.job.id()).toList(), reason);
    }

    /** Every build that has ended, in the order they ended, each named by the client that first submitted it. */
    public synchronized List<JobOutcome> outcomes() {
        return List.copyOf(ended);
    }

    /** How many builds ended with each outcome. */
    public synchronized Map<String, Integer> outcomeCounts() {
        return new LinkedHashMap<>(outcomes);
    }

    /** Sends {@code bye} to every connection and ends each once what it was sent is written. */
    public void bye(String report, String notWritten) {
        List<Connection> all;
        synchronized (this) {
            all = new ArrayList<>(clients);
            clients.clear();
        }
        ServerMessage.Bye bye = new ServerMessage.Bye(report, notWritten, outcomeCounts());
        for (Connection c : all) {
            c.outbox.send(bye);
            c.outbox.close();
        }
    }

    /** The answer to a {@code status} request. */
    synchronized ServerMessage.Status status(String requestId) {
        return new ServerMessage.Status(requestId, scheduler.queued(), scheduler.busy(), accepted, clients.size(),
                new ServerMessage.Status.Workers(pool.size(), pool.liveWorkers()), new LinkedHashMap<>(outcomes),
                clock.millis() - origin, shuttingDown);
    }

    private void checkDrained() {
        if (shuttingDown && running.isEmpty()) {
            drained.complete(null);
        }
    }

    /** The job under its service-wide name, {@code id.N}, cut to fit 128 characters. */
    private static String platforms(List<Target> targets) {
        return String.join(" and ", targets.stream().map(t -> t.platform().wireName()).toList());
    }

    private JobSpec named(JobSpec job) {
        String suffix = "." + submits.incrementAndGet();
        String id = job.id();
        if (id.length() + suffix.length() > MAX_JOB_ID) {
            id = id.substring(0, MAX_JOB_ID - suffix.length());
        }
        return job.withId(id + suffix);
    }

    /** An attempt of {@code build} was handed to a worker: every submit waiting for it is told. */
    private synchronized void started(Build build, JobStart start) {
        build.started = start;
        // a copy: a send can find its client gone, which takes the client's submits off
        for (Submission s : new ArrayList<>(build.waiting)) {
            s.client().outbox.send(startedMessage(s.clientJobId(), start));
        }
    }

    private static ServerMessage.Started startedMessage(String clientJobId, JobStart start) {
        return new ServerMessage.Started(clientJobId, start.jobId(), start.worker(), start.attempt());
    }

    /** The scheduler's outcome of {@code build} (null: its future failed, a bug), sent to every submit of it. */
    private void ended(Build build, JobOutcome outcome) {
        try {
            send(build, outcome != null ? outcome
                    : JobOutcome.crashed(build.job, Attempts.none(clock.millis() - origin), 0, 0, null));
        } catch (RuntimeException e) {
            // a bug: its submits would wait for ever; say so where the user looks
            LOG.error("the results of job {} could not be sent", build.job.id(), e);
        }
    }

    /** The build's outcome reached every submit still waiting for it. */
    private void send(Build build, JobOutcome outcome) {
        synchronized (this) {
            build.ended = true;
            running.remove(build);
            inFlight.remove(build.key, build);
            if (build.job instanceof CmakeJob c) {
                buildFolders.remove(c.buildDir(), build);
            }
            ended.add(outcome.forClient(build.firstClientJobId));
            outcomes.merge(outcome.outcome().wireName(), 1, Integer::sum);
            // a copy: a send can find its client gone (it does not read), which takes the client's submits off
            List<Submission> waiting = new ArrayList<>(build.waiting);
            build.waiting.clear();
            for (Submission s : waiting) {
                s.client().resultSent(s);
                s.client().outbox.send(new ServerMessage.Result(s.clientJobId(), s.shared(),
                        outcome.forClient(s.clientJobId())));
            }
            checkDrained();
        }
    }

    /**
     * Takes {@code submission} off its build; the build is to be cancelled when no submit waits for it any more.
     * Called holding the lock; the caller cancels the returned job id after the lock is released (a connection
     * that goes away cancels all of its builds in one call).
     */
    private Optional<String> leave(Submission submission) {
        Build build = submission.build();
        build.waiting.remove(submission);
        if (!build.waiting.isEmpty() || build.cancelled || build.ended) {
            return Optional.empty();
        }
        build.cancelled = true;
        inFlight.remove(build.key, build);
        return Optional.of(build.job.id());
    }

    /** One client's connection: its submits that wait for a result, by {@code clientJobId}. */
    public final class Connection {
        private final Outbox outbox;
        private final String name;
        // guarded by JobService.this
        private final Map<String, Submission> waiting = new HashMap<>();
        private boolean gone;

        private Connection(Outbox outbox, String name) {
            this.outbox = outbox;
            this.name = name;
        }

        /** Acts on one line the client sent. */
        public void receive(LineReader.Line line) {
            ServiceCodec.Decoded decoded = line instanceof LineReader.Line.Text text ? CODEC.decode(text.bytes())
                    : new ServiceCodec.Decoded.Refused(ServiceCodec.tooLong(((LineReader.Line.TooLong) line).bytes()));
            if (decoded instanceof ServiceCodec.Decoded.Message message) {
                receive(message.message());
            } else {
                outbox.send(((ServiceCodec.Decoded.Refused) decoded).error());
            }
        }

        /** Acts on one decoded message. */
        public void receive(ClientMessage message) {
            if (message instanceof ClientMessage.Submit submit) {
                submit(submit);
            } else if (message instanceof ClientMessage.Cancel cancel) {
                cancel(cancel.clientJobId());
            } else if (message instanceof ClientMessage.Status status) {
                outbox.send(status(status.requestId()));
            } else if (message instanceof ClientMessage.Shutdown shutdown) {
                shutdown(shutdown.cancelRunning(), "a shutdown message from " + name);
            }
        }

        /**
         * The connection has ended (the client closed it, or a write to it failed): its submits get no result,
         * and each build no other submit waits for is cancelled. Idempotent.
         */
        public void gone(String why) {
            List<String> cancels = new ArrayList<>();
            synchronized (JobService.this) {
                if (gone) {
                    return;
                }
                gone = true;
                clients.remove(this);
                for (Submission s : waiting.values()) {
                    leave(s).ifPresent(cancels::add);
                }
                LOG.info("{} disconnected ({}); {} of its jobs had no result yet", name, why, waiting.size());
                waiting.clear();
            }
            outbox.close();
            scheduler.cancel(cancels, "its client disconnected");
        }

        private void submit(ClientMessage.Submit submit) {
            String clientJobId = submit.clientJobId();
            JobSpec job;
            JobScope scope;
            try {
                job = reader.readJob(submit.cwd(), submit.job());
                scope = reader.readScope(submit.job(), "the job");
            } catch (ManifestException e) {
                outbox.send(ServerMessage.Error.about(ErrorCode.INVALID_JOB, clientJobId, e.getMessage()));
                return;
            }
            List<Target> allowed = targets.stream().filter(t -> scope.allows(t.platform())).toList();
            if (allowed.size() > 1) {
                outbox.send(ServerMessage.Error.about(ErrorCode.INVALID_JOB, clientJobId, "this serve builds for "
                        + platforms(allowed) + ", and the job could be built for more than one of them, but a submit"
                        + " is one build with one result: name its platform, \"platforms\": [\"cuda\"] or"
                        + " [\"hip\"], and submit it once per platform you want it built for"));
                return;
            }
            JobTargets.Assignment assignment;
            try {
                assignment = allowed.isEmpty()
                        ? new JobTargets.Assignment(TargetedJob.only(job, targets.get(0)), "it is limited to "
                                + String.join(" and ", scope.platforms().stream().map(Platform::wireName).sorted()
                                .toList()) + ", and this serve builds for " + platforms(targets))
                        : JobTargets.one(job, scope, allowed.get(0), builds, targets.size() > 1);
            } catch (ManifestException e) {
                outbox.send(ServerMessage.Error.about(ErrorCode.INVALID_JOB, clientJobId, e.getMessage()));
                return;
            }
            JobSpec planned = assignment.unit().job();
            Target target = assignment.unit().target();
            BuildKey key = new BuildKey(planned.withId("job"), target);
            Build build;
            boolean shared;
            synchronized (JobService.this) {
                if (gone) {
                    return;
                }
                if (shuttingDown) {
                    outbox.send(ServerMessage.Error.about(ErrorCode.SHUTTING_DOWN, clientJobId, "serve is shutting"
                            + " down and takes no more jobs; start another serve for them"));
                    return;
                }
                if (waiting.containsKey(clientJobId)) {
                    outbox.send(ServerMessage.Error.about(ErrorCode.DUPLICATE_CLIENT_JOB_ID, clientJobId,
                            "this connection already has the job " + quote(
                                    clientJobId, 128) + " without a result; give each job a clientJobId of its own"));
                    return;
                }
                build = assignment.skipped() != null ? null : inFlight.get(key);
                shared = build != null;
                if (!shared) {
                    Build other = planned instanceof CmakeJob c && assignment.skipped() == null
                            ? buildFolders.get(c.buildDir()) : null;
                    if (other != null) {
                        outbox.send(ServerMessage.Error.about(ErrorCode.BUILD_DIR_IN_USE, clientJobId,
                                "its build folder " + ((CmakeJob) planned).buildDir() + " is the build folder of job "
                                + other.job.id() + ", another build (other defines, arguments or environment) still"
                                + " queued or running, and two builds in one folder overwrite each other's files:"
                                + " give this job a build folder of its own (\"buildDir\"; the Python client's"
                                + " build_dir), or submit it after that job has ended"));
                        return;
                    }
                    build = new Build(named(planned), key, clientJobId);
                    running.add(build);
                    if (assignment.skipped() == null) {
                        inFlight.put(key, build);
                        if (planned instanceof CmakeJob c) {
                            buildFolders.put(c.buildDir(), build);
                        }
                    }
                }
                Submission s = new Submission(this, clientJobId, shared, build, clock.millis());
                build.waiting.add(s);
                waiting.put(clientJobId, s);
                accepted++;
                outbox.send(new ServerMessage.Accepted(clientJobId, build.job.id(), shared));
                if (build.started != null) {
                    // it joined a build that a worker runs already: it runs for this submit too
                    outbox.send(startedMessage(clientJobId, build.started));
                }
            }
            if (assignment.skipped() != null) {
                ended(build, JobOutcome.skipped(new TargetedJob(build.job, target, false), assignment.skipped()));
            } else if (!shared) {
                // one dependent action per build: 100,000 queued builds each hold it until they end
                Build submitted = build;
                // known to the duration history by the job's own id, which the next session's submit repeats
                scheduler.submit(new TargetedJob(build.job, target, false), job.id(),
                                start -> started(submitted, start))
                        .whenComplete((outcome, failure) -> ended(submitted, outcome));
            }
        }

        private void cancel(String clientJobId) {
            Optional<String> cancel;
            synchronized (JobService.this) {
                Submission s = waiting.get(clientJobId);
                if (s == null) {
                    outbox.send(ServerMessage.Error.about(ErrorCode.UNKNOWN_JOB, clientJobId, "this connection has"
                            + " no queued or running job " + quote(clientJobId, 128)
                            + " (it has its result already, or was never accepted)"));
                    return;
                }
                Build build = s.build();
                if (build.waiting.size() > 1) {
                    // others wait for the build: this submit alone ends, now
                    cancel = leave(s);
                    waiting.remove(clientJobId);
                    long now = clock.millis();
                    JobOutcome own = JobOutcome.cancelled(build.job, Attempts.none(now - origin),
                            now - s.acceptedAtMs(), 0, null, "cancelled by its client; the build goes on for the other"
                                    + " submits that share it");
                    outbox.send(new ServerMessage.Result(clientJobId, s.shared(), own.forClient(clientJobId)));
                } else {
                    // the result comes when the build ends, cancelled
                    build.cancelled = true;
                    inFlight.remove(build.key, build);
            if (build.job instanceof CmakeJob c) {
                buildFolders.remove(c.buildDir(), build);
            }
                    cancel = Optional.of(build.job.id());
                }
            }
            cancel.ifPresent(id -> scheduler.cancel(id, "cancelled by its client"));
        }

        /** Called holding the service's lock. */
        private void resultSent(Submission s) {
            waiting.remove(s.clientJobId(), s);
        }
    }

    private static final ServiceCodec CODEC = new ServiceCodec();
}
