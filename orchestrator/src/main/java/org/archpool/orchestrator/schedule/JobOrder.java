package org.archpool.orchestrator.schedule;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** {@code --order}: which queued job a free slot takes next. */
public enum JobOrder {
    /** In the order the jobs were submitted (the manifest's order). */
    FIFO,
    /**
     * The job expected to take longest first, by its recorded duration ({@link DurationHistory}); jobs without a
     * record after those with one, in the order they were submitted. So a long job cannot start last and stretch the
     * build when slots are free earlier.
     */
    LONGEST_FIRST;

    /** {@code fifo} or {@code longest-first}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** @throws IllegalArgumentException naming the values there are, for a value that is none of them */
    public static JobOrder parse(String value) {
        for (JobOrder order : values()) {
            if (order.wireName().equals(value)) {
                return order;
            }
        }
        throw new IllegalArgumentException("'" + value + "' is no order; use one of "
                + Arrays.stream(values()).map(JobOrder::wireName).collect(Collectors.joining(", ")));
    }
}
