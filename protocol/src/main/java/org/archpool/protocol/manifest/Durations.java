package org.archpool.protocol.manifest;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses durations written {@code 90s}, {@code 10m}, {@code 1h30m}, {@code 500ms}; a bare number means seconds. */
public final class Durations {

    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|h|m|s)");
    private static final Pattern BARE = Pattern.compile("\\d+(?:\\.\\d+)?");

    private Durations() {
    }

    /**
     * @throws IllegalArgumentException for anything else, and for zero or negative durations
     */
    public static Duration parse(String text) {
        String s = text == null ? "" : text.trim();
        Duration total;
        if (BARE.matcher(s).matches()) {
            total = ofSeconds(s);
        } else {
            Matcher m = PART.matcher(s);
            int end = 0;
            total = Duration.ZERO;
            while (m.find() && m.start() == end) {
                total = total.plus(unit(m.group(1), m.group(2)));
                end = m.end();
            }
            if (end != s.length() || s.isEmpty()) {
                throw new IllegalArgumentException("'" + text
                        + "' is not a duration: write it like 90s, 10m, 1h30m or 500ms (a bare number means seconds)");
            }
        }
        if (total.isZero() || total.isNegative()) {
            throw new IllegalArgumentException("'" + text + "' is not a positive duration");
        }
        return total;
    }

    /** Writes a duration the way {@link #parse} reads it. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 1000 != 0) {
            return ms + "ms";
        }
        long s = ms / 1000;
        StringBuilder out = new StringBuilder();
        if (s >= 3600) {
            out.append(s / 3600).append('h');
            s %= 3600;
        }
        if (s >= 60) {
            out.append(s / 60).append('m');
            s %= 60;
        }
        if (s > 0 || out.length() == 0) {
            out.append(s).append('s');
        }
        return out.toString();
    }

    private static Duration ofSeconds(String number) {
        return Duration.ofMillis(Math.round(Double.parseDouble(number) * 1000));
    }

    private static Duration unit(String number, String unit) {
        double value = Double.parseDouble(number);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(Math.round(value));
            case "s" -> Duration.ofMillis(Math.round(value * 1000));
            case "m" -> Duration.ofMillis(Math.round(value * 60_000));
            case "h" -> Duration.ofMillis(Math.round(value * 3_600_000));
            default -> throw new IllegalStateException(unit);
        };
    }
}
