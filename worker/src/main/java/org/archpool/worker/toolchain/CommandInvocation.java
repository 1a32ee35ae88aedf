package org.archpool.worker.toolchain;

import java.util.ArrayList;
import java.util.List;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.Target;

/**
 * The argv of a {@link CommandJob} with its placeholders expanded: an item that is exactly
 * {@code {offload-arch-flags}} becomes one item per architecture ({@link OffloadArchFlags}); {@code {archs}}
 * anywhere inside an item becomes the {@code ;}-joined list.
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
}
