package org.archpool.orchestrator.toolchain;

import java.util.ArrayList;
import java.util.List;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.Target;

/**
 * The argv of a {@link CommandJob} with its placeholders expanded: an item that is exactly
 * {@code {offload-arch-flags}} becomes one item per architecture ({@link OffloadArchFlags}); {@code {archs}}
 * anywhere inside an item becomes the {@code ;}-joined list. The coordinator expands them before a job is
 * sent, so a worker runs the argv it is given.
 */
public final class CommandInvocation {

    public static final String ARCHS = "{archs}";
    public static final String OFFLOAD_ARCH_FLAGS = "{offload-arch-flags}";

    private CommandInvocation() {
    }

    public static List<String> argv(CommandJob job, Target target) {
        List<String> argv = new ArrayList<>();
        for (String item : job.argv()) {
            if (item.equals(OFFLOAD_ARCH_FLAGS)) {
                argv.addAll(OffloadArchFlags.flags(target));
            } else {
                argv.add(item.replace(ARCHS, target.cmakeList()));
            }
        }
        return argv;
    }

    /**
     * The job as a worker receives it: its argv expanded for {@code target}, or the same job when there is
     * nothing to expand.
     *
     * @throws IllegalArgumentException when an architecture of {@code target} has no compiler flag
     */
    public static CommandJob concrete(CommandJob command, Target target) {
        List<String> argv = argv(command, target);
        return argv.equals(command.argv()) ? command : command.withArgv(argv);
    }
}
