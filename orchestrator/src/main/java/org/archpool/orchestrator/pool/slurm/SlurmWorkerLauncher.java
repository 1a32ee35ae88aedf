package org.archpool.orchestrator.pool.slurm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.archpool.orchestrator.pool.DeviceIsolation;
import org.archpool.orchestrator.pool.NodeSummary;
import org.archpool.orchestrator.pool.Worker;
import org.archpool.orchestrator.pool.WorkerFailedException;
import org.archpool.orchestrator.pool.WorkerFailure;
import org.archpool.orchestrator.pool.WorkerHandshake;
import org.archpool.orchestrator.pool.WorkerLauncher;
import org.archpool.orchestrator.pool.WorkerSpec;
import org.archpool.worker.WorkerMain;
import org.archpool.worker.exec.RemoteIsolation;

/**
 * {@code --launcher slurm}: each worker JVM is a Slurm step started by {@code srun} ({@link SrunCommand}), in
 * the coordinator's allocation when it runs in one, else as a job of its own. The protocol goes through
 * {@code srun}'s stdin and stdout unchanged; the worker's stderr goes to {@code <id>.stderr.log} and
 * {@code srun}'s own messages to {@code <id>.srun.log}, both in the worker log folder. A worker that ends is
 * reported with what Slurm said ({@link SlurmStep}). Closing the launcher cancels every step it started that
 * is still there, including one still waiting in Slurm's queue for its start. With device isolation, the node
 * masks the GPU devices for the worker where its kernel allows it ({@link RemoteIsolation}). Nodes where workers
 * keep failing to start, or that Slurm says are lost after a worker died there, are kept out of later workers'
 * {@code srun} ({@link SlurmNodes}); a start whose failure was a node's is worth another try at once
 * ({@link #startAgain}), so that a bad node costs no job its retry.
 */
public final class SlurmWorkerLauncher implements WorkerLauncher {

    private final WorkerSpec spec;
    private final SlurmConfig config;
    private final StepCanceller canceller;
    private final WorkerHandshake handshake;
    private final Map<Process, SlurmStep> started = new ConcurrentHashMap<>();
    private final Optional<RemoteIsolation> isolation;
    private final SlurmNodes nodes;

    /**
     * @param spec      the worker JVM's command and environment; its java, class path and stderr folder must be
     *                  at the same paths on every node (a shared file system)
     * @param canceller cancels a worker's step by name ({@link Scancel})
     * @param isolation the device isolation each worker's node applies where it can ({@code --isolate-devices})
     * @param states    asks Slurm whether a node is lost ({@link Sinfo})
     */
    public SlurmWorkerLauncher(WorkerSpec spec, SlurmConfig config, StepCanceller canceller,
                               Optional<RemoteIsolation> isolation, NodeStates states) {
        this.spec = spec;
        this.config = config;
        this.canceller = canceller;
        this.isolation = isolation;
        this.nodes = new SlurmNodes(states);
        this.handshake = new WorkerHandshake(spec.helloTimeout(), spec.silenceLimit());
    }

    /** Without device isolation, and without asking Slurm about nodes. */
    public SlurmWorkerLauncher(WorkerSpec spec, SlurmConfig config, StepCanceller canceller) {
        this(spec, config, canceller, Optional.empty(), node -> Optional.empty());
    }

    /**
     * {@code namespace} only where every worker has it ({@code --isolate-devices on}): under {@code auto} each node
     * decides for itself, and says on the worker's stderr when it could not.
     */
    @Override
    public DeviceIsolation deviceIsolation() {
        return isolation.filter(RemoteIsolation::required).isPresent() ? DeviceIsolation.NAMESPACE
                : DeviceIsolation.ENVIRONMENT;
    }

    /** The worker's command line on its node: with isolation, its steps told to mask the driver's views too. */
    private List<String> workerCommand(String workerId) {
        if (isolation.isEmpty()) {
            return spec.command(workerId);
        }
        List<String> command = new ArrayList<>(spec.command(workerId));
        command.add(WorkerMain.MASK_DEVICES);
        return isolation.get().wrap(command);
    }

    @Override
    public String mode() {
        return "process";
    }

    @Override
    public String launcher() {
        return "slurm";
    }

    @Override
    public Worker launch(String workerId) throws WorkerFailedException {
        Worker worker = start(workerId);
        nodes.started(worker.host());
        return worker;
    }

    /** A start whose failure Slurm's words tie to a node counts against the node, and is worth another try. */
    @Override
    public boolean startAgain(WorkerFailedException failure) {
        return failure.failure() == WorkerFailure.START && nodes.startFailed(failure.getMessage());
    }

    private Worker start(String workerId) throws WorkerFailedException {
        Path stderr = spec.stderrDir().resolve(workerId + ".stderr.log");
        Path srunLog = spec.stderrDir().resolve(workerId + ".srun.log");
        String name = config.stepName(workerId);
        List<String> command = SrunCommand.argv(config, name, stderr, workerCommand(workerId),
                nodes.avoided());
        Process srun;
        SlurmStep step;
        try {
            Files.createDirectories(spec.stderrDir());
            step = new SlurmStep(name, canceller, srunLog, stderr);
            srun = spec.processBuilder(command, srunLog).start();
        } catch (IOException e) {
            throw new WorkerFailedException(WorkerFailure.START, "cannot start worker " + workerId + " with "
                    + config.srun() + ": " + e.getMessage() + " (is Slurm's srun on the PATH?)");
        }
        started.put(srun, step);
        srun.onExit().thenRun(() -> started.remove(srun));
        return handshake.await(workerId, srun, step,
                () -> "Slurm step " + name + "; its stderr is in " + stderr + ", srun's in " + srunLog);
    }

    /** Asks Slurm whether the worker's node is lost; a lost node gets no more workers of this build. */
    @Override
    public void workerDied(Worker worker, WorkerFailure cause, String reason) {
        nodes.died(worker.host(), reason);
    }

    @Override
    public List<NodeSummary> nodes() {
        return nodes.summary();
    }

    /** Cancels every worker step still there (the pool closed the others), then stops the watchdog. */
    @Override
    public void close() {
        List.copyOf(started.entrySet()).parallelStream()
                .forEach(e -> e.getValue().kill(e.getKey()));
        handshake.close();
    }
}
