package org.archpool.orchestrator.manifest;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.archpool.protocol.UntrustedText;

/** Parses durations written {@code 90s}, {@code 10m}, {@code 1h30m}, {@code 500ms}; a bare number means seconds. */
public final class Durations {

    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|h|m|s)");
    private static final Pattern BARE = Pattern.compile("\\d+(?:\\.\\d+)?");

    private Durations() {
    }

    /** The longest duration accepted: longer ones are typos, and their milliseconds would overflow arithmetic. */
    public static final Duration MAX = Duration.ofDays(365);

    /**
     * @throws IllegalArgumentException for anything else, for zero or negative durations, and for durations longer
     *                                  than {@link #MAX}
     */
    public static Duration parse(String text) {
        String s = text == null ? "" : text.trim();
        long total = 0;
        if (BARE.matcher(s).matches()) {
            total = millis(text, s, "s");
        } else {
            Matcher m = PART.matcher(s);
            int end = 0;
            while (m.find() && m.start() == end) {
                total += millis(text, m.group(1), m.group(2));
                if (total > MAX.toMillis()) {
                    throw tooLong(text);
                }
                end = m.end();
            }
            if (end != s.length() || s.isEmpty()) {
                if (s.startsWith("-")) {
                    throw notPositive(text);
                }
                throw new IllegalArgumentException(shown(text)
                        + " is not a duration: write it like 90s, 10m, 1h30m or 500ms (a bare number means seconds)");
            }
        }
        if (total <= 0) {
            throw notPositive(text);
        }
        return Duration.ofMillis(total);
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

    /** The milliseconds of one part, rounded; refused when longer than {@link #MAX} (a double never overflows). */
    private static long millis(String text, String number, String unit) {
        double value = Double.parseDouble(number);
        double ms = switch (unit) {
            case "ms" -> value;
            case "s" -> value * 1000;
            case "m" -> value * 60_000;
            case "h" -> value * 3_600_000;
            default -> throw new IllegalStateException(unit);
        };
        if (!(ms <= MAX.toMillis())) {
            throw tooLong(text);
        }
        return Math.round(ms);
    }

    private static IllegalArgumentException notPositive(String text) {
        return new IllegalArgumentException(shown(text) + " is not a positive duration: write one like 90s, 10m or 1h30m");
    }

    private static IllegalArgumentException tooLong(String text) {
        return new IllegalArgumentException(shown(text) + " is longer than the longest duration allowed ("
                + MAX.toDays() + " days)");
    }

    /** The user's text quoted for a message, at most 40 characters of it. */
    private static String shown(String text) {
        return UntrustedText.quote(text == null ? "" : text, 40);
    }
}
