package org.archpool.orchestrator.arch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.archpool.orchestrator.tool.ToolOutput;
import org.archpool.orchestrator.tool.ToolRunner;

/**
 * {@code nvidia-smi -L}, run only when a {@code MIG-} entry of {@code CUDA_VISIBLE_DEVICES} needs mapping to
 * its GPU, at most once, with its diagnostic kept for the report.
 */
final class MigListing implements Supplier<List<NvidiaSmiGpu>> {

    private final ToolRunner runner;
    private final Duration timeout;
    private final List<ProbeReport> reports = new ArrayList<>();
    private List<NvidiaSmiGpu> gpus;

    MigListing(ToolRunner runner, Duration timeout) {
        this.runner = runner;
        this.timeout = timeout;
    }

    @Override
    public synchronized List<NvidiaSmiGpu> get() {
        if (gpus != null) {
            return gpus;
        }
        List<String> command = new ArrayList<>(List.of("nvidia-smi"));
        command.addAll(NvidiaSmiParser.LIST_ARGUMENTS);
        ToolOutput out = runner.run(command, timeout);
        String status;
        String message = null;
        List<NvidiaSmiGpu> found = List.of();
        if (out.status() != ToolOutput.Status.EXITED) {
            status = out.status() == ToolOutput.Status.MISSING ? "missing" : out.status().name().toLowerCase(java.util.Locale.ROOT);
            message = out.problem();
        } else if (out.exitCode() != 0) {
            status = "failed";
            message = "nvidia-smi -L exited with status " + out.exitCode();
        } else {
            try {
                found = NvidiaSmiParser.parseList(out.stdout());
                status = found.isEmpty() ? "no_devices" : "detected";
            } catch (ProbeOutputException e) {
                status = "unparseable";
                message = e.getMessage();
            }
        }
        reports.add(new ProbeReport("nvidia-smi", command, status, out.exitCode(), out.ms(), found.size(), message));
        gpus = found;
        return gpus;
    }

    /** The report of the one run, if it ran. */
    synchronized List<ProbeReport> reports() {
        return List.copyOf(reports);
    }
}
