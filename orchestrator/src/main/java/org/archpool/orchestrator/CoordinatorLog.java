package org.archpool.orchestrator;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import java.nio.file.Path;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's log file, {@code <log-dir>/archpool.log}: everything archpool logs at INFO and above during one
 * build (resolution, worker starts and deaths, each job's outcome), next to the job logs and the workers' stderr
 * logs ({@code <log-dir>/workers/}). Closing it detaches the file. Does nothing when SLF4J is not bound to logback.
 */
final class CoordinatorLog implements AutoCloseable {

    private static final String PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{0}: %msg%n";

    private final FileAppender<ILoggingEvent> appender;

    private CoordinatorLog(FileAppender<ILoggingEvent> appender) {
        this.appender = appender;
    }

    static CoordinatorLog open(Path file) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return new CoordinatorLog(null);
        }
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(PATTERN);
        encoder.start();
        FileAppender<ILoggingEvent> appender = new FileAppender<>();
        appender.setContext(context);
        appender.setName("archpool-build-log");
        appender.setFile(file.toString());
        appender.setAppend(false);
        appender.setEncoder(encoder);
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
