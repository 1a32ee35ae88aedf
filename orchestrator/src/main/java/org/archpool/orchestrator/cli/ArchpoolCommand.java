package org.archpool.orchestrator.cli;

import org.archpool.orchestrator.Version;
import picocli.CommandLine.Command;

/** The top-level command: {@code archpool build|serve|arch|inspect}. */
@Command(name = "archpool",
        mixinStandardHelpOptions = true,
        versionProvider = ArchpoolCommand.VersionProvider.class,
        description = "Compiles many GPU kernels in parallel, for the right GPU, in a pool of GPU-blind workers.",
        subcommands = {BuildCommand.class, ServeCommand.class, ArchCommand.class, InspectCommand.class,
                CacheCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every job succeeded",
            "1:some job did not succeed",
            "2:bad usage or manifest",
            "3:the architecture could not be resolved",
            "70:internal error (a bug in archpool)",
            "130:interrupted"})
public final class ArchpoolCommand implements java.util.concurrent.Callable<Integer> {

    private final CliContext context;

    public ArchpoolCommand(CliContext context) {
        this.context = context;
    }

    CliContext context() {
        return context;
    }

    @Override
    public Integer call() {
        context.err().println("archpool: name a command: 'archpool build MANIFEST', 'archpool serve --stdio',"
                + " 'archpool arch' or 'archpool inspect FILE'. Run 'archpool --help' for more.");
        return ExitCodes.USAGE;
    }

    /** Prints the version from the jar manifest. */
    public static final class VersionProvider implements picocli.CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"archpool " + Version.current()};
        }
    }
}
