package org.archpool.orchestrator.cli;

import org.archpool.orchestrator.arch.ArchResolutionException;
import org.archpool.orchestrator.arch.ArchSyntaxException;
import org.archpool.orchestrator.cache.CacheSetupException;
import org.archpool.orchestrator.manifest.ManifestException;
import org.archpool.orchestrator.output.OutputPathException;
import org.archpool.orchestrator.report.OutputWriteException;
import picocli.CommandLine;

/** The one place that maps outcomes and errors to exit codes. */
public final class ExitCodes implements CommandLine.IExitCodeExceptionMapper {

    public static final int OK = 0;
    public static final int JOBS_FAILED = 1;
    public static final int USAGE = 2;
    public static final int ARCH_UNRESOLVED = 3;
    /**
     * A bug in archpool; also a JVM that cannot start: the coordinator's ({@code bin/archpool}: no Java runtime, or
     * one that refuses {@code ARCHPOOL_JAVA_OPTS}) or every worker's (the build then ends with the report, every job
     * {@code crashed}, and the reason on stderr) — sysexits' EX_SOFTWARE.
     */
    public static final int INTERNAL = 70;
    /** An output file (report, metrics, trace, JUnit, HTML) could not be written (sysexits' EX_IOERR). */
    public static final int OUTPUT_FAILED = 74;
    public static final int INTERRUPTED = 130;

    @Override
    public int getExitCode(Throwable e) {
        if (e instanceof UsageException || e instanceof ManifestException || e instanceof ArchSyntaxException
                || e instanceof OutputPathException || e instanceof CacheSetupException
                || e instanceof CommandLine.ParameterException) {
            return USAGE;
        }
        if (e instanceof ArchResolutionException) {
            return ARCH_UNRESOLVED;
        }
        if (e instanceof OutputWriteException) {
            return OUTPUT_FAILED;
        }
        return INTERNAL;
    }
}
