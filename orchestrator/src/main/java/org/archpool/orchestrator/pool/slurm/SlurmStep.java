package org.archpool.orchestrator.pool.slurm;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.archpool.orchestrator.pool.ProcessControl;
import org.archpool.worker.exec.ProcessTreeKiller;

/**
 * One worker under Slurm, as its handle sees it: an {@code srun} here and a job step somewhere. Killing it
 * cancels the step through Slurm first (killing {@code srun} alone can leave a queued job behind, or a step
 * that Slurm reaps only seconds later), then the {@code srun}. What Slurm said about the worker's end is read
 * from what {@code srun} wrote to its log and the {@code slurmstepd} lines in the worker's stderr file, from
 * where each file ended when this worker started.
 */
final class SlurmStep implements ProcessControl {

    /** How long {@code srun} gets to report a cancelled step and exit before it is killed. */
    private static final long SRUN_EXIT_WAIT_MS = 3000;
    private static final int MAX_NOTES = 4;
    private static final int MAX_NOTE_CHARS = 300;

    private final String name;
    private final StepCanceller canceller;
    private final Path srunLog;
    private final long srunLogStart;
    private final Path workerStderr;
    private final long workerStderrStart;

    /**
     * @param srunLog      where {@code srun}'s own stderr goes
     * @param workerStderr where the task's stderr goes (Slurm's {@code slurmstepd} writes its messages there)
     */
    SlurmStep(String name, StepCanceller canceller, Path srunLog, Path workerStderr) {
        this.name = name;
        this.canceller = canceller;
        this.srunLog = srunLog;
        this.srunLogStart = size(srunLog);
        this.workerStderr = workerStderr;
        this.workerStderrStart = size(workerStderr);
    }

    String name() {
        return name;
    }

    @Override
    public void kill(Process srun) {
        if (srun.isAlive()) {
            canceller.cancel(name);
            try {
                srun.onExit().get(SRUN_EXIT_WAIT_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // still running: killed below
            }
        }
        ProcessTreeKiller.kill(srun.toHandle());
    }

    @Override
    public String deathNotes() {
        List<String> notes = new ArrayList<>();
        notes.addAll(lines(workerStderr, workerStderrStart, line -> line.startsWith("slurmstepd")));
        notes.addAll(lines(srunLog, srunLogStart, line -> !line.isBlank()));
        if (notes.isEmpty()) {
            return "";
        }
        List<String> last = notes.subList(Math.max(0, notes.size() - MAX_NOTES), notes.size());
        return "Slurm said: " + String.join("; ", last.stream().map(SlurmStep::abbreviate).toList());
    }

    private static List<String> lines(Path file, long from, Predicate<String> keep) {
        List<String> kept = new ArrayList<>();
        if (!Files.isRegularFile(file)) {
            return kept;
        }
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long length = in.length();
            long start = Math.max(from, length - 64 * 1024);
            byte[] bytes = new byte[(int) Math.max(0, length - start)];
            in.seek(start);
            in.readFully(bytes);
            for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
                String stripped = line.strip();
                if (keep.test(stripped)) {
                    kept.add(stripped);
                }
            }
        } catch (IOException e) {
            kept.add("(" + file + " could not be read: " + e.getMessage() + ")");
        }
        return kept;
    }

    private static long size(Path file) {
        try {
            return Files.isRegularFile(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    private static String abbreviate(String line) {
        return line.length() <= MAX_NOTE_CHARS ? line : line.substring(0, MAX_NOTE_CHARS - 3) + "...";
    }
}
