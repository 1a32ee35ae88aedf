package org.archpool.orchestrator.cli;

import java.time.Duration;
import org.archpool.orchestrator.manifest.Durations;
import picocli.CommandLine;

/** Reads {@code 90s}, {@code 10m}, {@code 1h30m}, {@code 500ms} or a bare number of seconds. */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        try {
            return Durations.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
