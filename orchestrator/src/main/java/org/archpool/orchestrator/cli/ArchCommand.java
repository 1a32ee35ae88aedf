package org.archpool.orchestrator.cli;

import java.util.List;
import java.util.concurrent.Callable;
import org.archpool.orchestrator.arch.GpuDevice;
import org.archpool.orchestrator.arch.ProbeReport;
import org.archpool.orchestrator.arch.Resolution;
import org.archpool.orchestrator.arch.TargetRequest;
import org.archpool.orchestrator.pool.DeviceIsolation;
import org.archpool.orchestrator.report.ReportWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code archpool arch}: what a build would target, and why. */
@Command(name = "arch", mixinStandardHelpOptions = true,
        description = "Print the architecture a build would target and where it came from (flag, environment"
                + " or detection), with every probe that ran (each target's, with --target or --platform all), and how a build's workers would be kept from seeing a"
                + " GPU (--isolate-devices).")
public final class ArchCommand implements Callable<Integer> {

    @ParentCommand
    ArchpoolCommand parent;

    @Mixin
    ArchOptions archOptions = new ArchOptions();

    @Option(names = "--json", description = "Print the resolution as JSON.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        CliContext context = parent.context();
        TargetRequest request = archOptions.targetRequest();
        List<Resolution> all = archOptions.resolver(context).resolveAll(request);
        if (json) {
            // one target: the resolution, as a build's report holds it; several: a list of them
            boolean one = request.requests().size() == 1 && !request.whicheverResolve();
            context.out().println(new ReportWriter().toJson(one ? all.get(0) : all));
            return ExitCodes.OK;
        }
        for (int i = 0; i < all.size(); i++) {
            if (i > 0) {
                context.out().println();
            }
            print(context, all.get(i));
        }
        DeviceIsolation isolation = new IsolationOptions().workerNamespace(note -> { }).isPresent()
                ? DeviceIsolation.NAMESPACE : DeviceIsolation.ENVIRONMENT;
        context.out().println("workers:  GPUs hidden by " + isolation.reportName() + " (--isolate-devices auto): "
                + isolation.hides());
        return ExitCodes.OK;
    }

    private static void print(CliContext context, Resolution r) {
        context.out().println("platform: " + r.platform().wireName());
        context.out().println("archs:    " + String.join(";", r.archs()));
        context.out().println("source:   " + r.source() + (r.detail() == null ? "" : " (" + r.detail() + ")"));
        for (GpuDevice d : r.devices()) {
            boolean visible = r.visibility() != null && r.visibility().visibleIndices().contains(d.index());
            context.out().println("device:   " + d.index() + " " + d.arch()
                    + (d.targetId() == null ? "" : " (" + d.targetId() + ")")
                    + (d.name() == null ? "" : " " + d.name()) + (d.uuid() == null ? "" : " " + d.uuid())
                    + (visible ? "" : " [not visible]"));
        }
        if (r.visibility() != null) {
            context.out().println("visible:  " + r.visibility().applied());
        }
        for (String w : r.warnings()) {
            context.out().println("warning:  " + w);
        }
        for (ProbeReport p : r.probes()) {
            context.out().println("probe:    " + String.join(" ", p.command()) + " -> " + p.status()
                    + (p.message() == null ? "" : " (" + p.message() + ")") + " [" + p.ms() + " ms]");
        }
    }
}
