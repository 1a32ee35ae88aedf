package org.archpool.orchestrator.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The value of {@code --max-log-size}: a number of bytes with an optional binary unit ({@code 512K}, {@code 64M},
 * {@code 1G}, {@code 2T}; {@code KiB}, {@code MB} and lower case are read the same, all powers of 1024), or
 * {@code 0} / {@code unlimited} for no cap.
 */
final class LogSize {

    /** The default cap: 64 MiB. */
    static final String DEFAULT = "64M";
    /** The smallest cap: room for a head, a tail and the line that says what was cut between them. */
    static final long MIN_BYTES = 4096;

    private static final Pattern SIZE = Pattern.compile("(\\d{1,19})\\s*(?:([KMGT])(?:I?B)?|B)?");

    private LogSize() {
    }

    /**
     * @return the cap in bytes, or null for no cap
     * @throws UsageException for anything else, naming the value and what is accepted
     */
    static Long parse(String value) throws UsageException {
        if (value.strip().equalsIgnoreCase("UNLIMITED")) {
            return null;
        }
        long bytes;
        try {
            bytes = bytes(value);
        } catch (IllegalArgumentException e) {
            throw invalid(value, e.getMessage());
        }
        if (bytes == 0) {
            return null;
        }
        if (bytes < MIN_BYTES) {
            throw invalid(value, "a cap must be at least 4K, to hold the head, the tail and the line between them");
        }
        return bytes;
    }

    /**
     * {@code --cache-max-size} and {@code archpool cache prune --max-size}: a size as {@link #parse} reads it,
     * 0 included (an empty cache).
     */
    static long cacheSize(String flag, String value) throws UsageException {
        try {
            return bytes(value);
        } catch (IllegalArgumentException e) {
            throw new UsageException(flag + " " + value + " is not valid: " + e.getMessage() + ". Give a size such as"
                    + " 10G, 500M or a number of bytes");
        }
    }

    /** A size with an optional binary unit, in bytes; the exception's message says why it is not one. */
    private static long bytes(String value) {
        Matcher m = SIZE.matcher(value.strip().toUpperCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("it is not a size");
        }
        int shift = m.group(2) == null ? 0 : switch (m.group(2)) {
            case "K" -> 10;
            case "M" -> 20;
            case "G" -> 30;
            default -> 40;
        };
        long number;
        try {
            number = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("it is too large");
        }
        if (number > Long.MAX_VALUE >> shift) {
            throw new IllegalArgumentException("it is too large");
        }
        return number << shift;
    }

    private static UsageException invalid(String value, String why) {
        return new UsageException("--max-log-size " + value + " is not valid: " + why + ". Give a size such as 64M"
                + " (the default), 1G, 512K or a number of bytes, or 0 or unlimited to keep whole logs");
    }
}
