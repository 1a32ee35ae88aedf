package org.archpool.orchestrator;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.archpool.orchestrator.output.FileErrors;
import org.archpool.orchestrator.output.LogLayout;
import org.archpool.orchestrator.output.OutputPathException;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's log file, {@code <log-dir>/@archpool.log} ({@link LogLayout#COORDINATOR_LOG}, a name no job's
 * log can have): everything archpool logs at INFO and above during one build (resolution, worker starts and deaths,
 * each job's outcome), next to the job logs and the workers' stderr logs ({@code <log-dir>/workers/}). A file left
 * there by an earlier build is removed and a new one created ({@code O_EXCL}, so a link or a hard link planted at
 * that name is never written through). Closing it detaches the file. Does nothing when SLF4J is not bound to
 * logback.
 */
final class CoordinatorLog implements AutoCloseable {

    private static final String PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{0}: %msg%n";

    private final OutputStreamAppender<ILoggingEvent> appender;

    private CoordinatorLog(OutputStreamAppender<ILoggingEvent> appender) {
        this.appender = appender;
    }

    /** @throws OutputPathException when the file cannot be created */
    static CoordinatorLog open(Path file) throws OutputPathException {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return new CoordinatorLog(null);
        }
        OutputStream stream;
        try {
            Files.deleteIfExists(file);
            stream = Files.newOutputStream(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new OutputPathException("cannot create the coordinator's log " + file + ": "
                    + FileErrors.describe(e) + "; give --log-dir a folder you can write");
        }
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(PATTERN);
        encoder.start();
        OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
        appender.setContext(context);
        appender.setName("archpool-build-log");
        appender.setEncoder(encoder);
        appender.setOutputStream(stream);
        appender.start();
        context.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(appender);
        return new CoordinatorLog(appender);
    }

    @Override
    public void close() {
        if (appender != null) {
            ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(Logger.ROOT_LOGGER_NAME)
                    .detachAppender(appender);
            appender.stop();
        }
    }
}
