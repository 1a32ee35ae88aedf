package org.archpool.orchestrator.arch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One device-visibility variable applied to the devices it selects from: its value split at commas into entries,
 * each without the ASCII spaces and tabs around it and resolved as a {@link VisibilityEntry}. The first invalid
 * entry ends the list (the entries before it apply, and a warning quotes the ignored part). A device named again
 * is skipped with a warning, except for CUDA, where a repeat hides every device.
 *
 * @param reader     who reads the variable
 * @param variable   its name
 * @param value      its value, as set
 * @param candidates the devices it selects from, which its indices number
 * @param selected   the devices it selected, in the order named, each once; empty when it selects none
 * @param warnings   sentences for the report: the ignored rest of the list, skipped repeats
 * @param stopped    why the list ended early ({@code entry 2 "7" is out of range (...)}); {@code null} when every
 *                   entry applied
 * @param repeat     CUDA only: the repeat that hides every device; {@code null} when there is none
 * @param byIndex    whether an entry named a device by index
 * @param byUuid     whether an entry named a device by a GPU or MIG UUID
 * @param migEntries how many distinct MIG devices were named
 */
record VisibilityStep(VisibilityReader reader, String variable, String value, List<GpuDevice> candidates,
                      List<GpuDevice> selected, List<String> warnings, String stopped, String repeat,
                      boolean byIndex, boolean byUuid, int migEntries) {

    private static final int MAX_REPEATS_LISTED = 5;

    VisibilityStep {
        candidates = List.copyOf(candidates);
        selected = List.copyOf(selected);
        warnings = List.copyOf(warnings);
    }

    /**
     * Applies {@code variable=value} to {@code candidates}.
     *
     * @param detected  every detected device (a MIG entry's GPU is looked up there)
     * @param rangeText describes the valid indices, for an entry out of range
     * @param scope     qualifies "matches no device's UUID"
     * @param migs      maps MIG entries; {@code null} where they are invalid (every reader but CUDA)
     */
    static VisibilityStep select(VisibilityReader reader, String variable, String value, List<GpuDevice> candidates,
                                 List<GpuDevice> detected, String rangeText, String scope, MigMatcher migs) {
        List<GpuDevice> selected = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        String stopped = null;
        String repeat = null;
        boolean byIndex = false;
        boolean byUuid = false;
        int migEntries = 0;
        Map<Object, Integer> seen = new HashMap<>();
        List<String> skipped = new ArrayList<>();
        int skippedCount = 0;
        int start = 0;
        int position = 0;
        while (true) {
            int comma = value.indexOf(',', start);
            int end = comma < 0 ? value.length() : comma;
            String raw = value.substring(start, end);
            position++;
            VisibilityEntry r = VisibilityEntry.resolve(reader, strip(raw), candidates, detected, rangeText, scope,
                    migs);
            if (r.problem() != null) {
                stopped = "entry " + position + " " + VisibilityText.quote(raw) + " " + r.problem();
                warnings.add(VisibilityText.assignment(variable, value) + ": entry " + position + " "
                        + VisibilityText.quote(raw) + " " + r.problem() + ", so " + reader.who
                        + " ignores it and everything after it (" + VisibilityText.quote(value.substring(start))
                        + ").");
                break;
            }
            Integer earlier = seen.putIfAbsent(r.key(), position);
            if (earlier != null) {
                String what = r.kind() == VisibilityEntry.Kind.MIG
                        ? "MIG device " + VisibilityText.quote(r.label())
                        : reader.noun + " " + r.device().index();
                if (reader == VisibilityReader.CUDA) {
                    repeat = "entries " + earlier + " and " + position + " both name " + what
                            + ", and the CUDA driver shows no GPU at all when one is listed twice";
                    selected.clear();
                    break;
                }
                skippedCount++;
                if (skipped.size() < MAX_REPEATS_LISTED) {
                    skipped.add(position + " (" + what + ", as entry " + earlier + ")");
                }
            } else {
                switch (r.kind()) {
                    case INDEX -> byIndex = true;
                    case GPU_UUID -> byUuid = true;
                    case MIG -> {
                        byUuid = true;
                        migEntries++;
                    }
                }
                if (!selected.contains(r.device())) {
                    selected.add(r.device());
                }
            }
            if (comma < 0) {
                break;
            }
            start = comma + 1;
        }
        if (skippedCount > 0) {
            warnings.add(VisibilityText.assignment(variable, value) + " names a GPU more than once; " + reader.who
                    + " skips the repeat" + (skippedCount == 1 ? "" : "s") + ": entr" + (skippedCount == 1 ? "y " : "ies ")
                    + String.join(", ", skipped) + (skippedCount > skipped.size()
                            ? " and " + (skippedCount - skipped.size()) + " more" : "") + ".");
        }
        return new VisibilityStep(reader, variable, value, candidates, selected, warnings, stopped, repeat, byIndex,
                byUuid, migEntries);
    }

    /** {@code text} without the ASCII spaces and tabs around it (no other white space counts). */
    private static String strip(String text) {
        int from = 0;
        int to = text.length();
        while (from < to && (text.charAt(from) == ' ' || text.charAt(from) == '\t')) {
            from++;
        }
        while (to > from && (text.charAt(to - 1) == ' ' || text.charAt(to - 1) == '\t')) {
            to--;
        }
        return text.substring(from, to);
    }
}
