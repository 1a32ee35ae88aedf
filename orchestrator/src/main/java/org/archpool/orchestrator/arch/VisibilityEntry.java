package org.archpool.orchestrator.arch;

import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * One entry of a device-visibility variable, resolved against the devices the variable selects from: an index, a
 * {@code GPU-} UUID or prefix (matching exactly one device), or, for CUDA, a {@code MIG-} UUID that
 * {@link MigMatcher} maps to its GPU. Anything else is invalid, with the reason; the syntax is described in
 * {@link DeviceVisibility}.
 *
 * @param device  the device the entry names; {@code null} when it is invalid
 * @param key     what two entries naming the same thing share: the device, or for a MIG entry its MIG device
 * @param kind    how the entry names the device; {@code null} when it is invalid
 * @param label   for a MIG entry, the MIG device's UUID as messages name it; {@code null} otherwise
 * @param problem why the entry is invalid, to follow its quoted text ({@code is out of range (...)}); {@code null}
 *                when it names a device
 */
record VisibilityEntry(GpuDevice device, Object key, Kind kind, String label, String problem) {

    /** How an entry names a device. */
    enum Kind { INDEX, GPU_UUID, MIG }

    private static final int MAX_ENTRY_CHARS = 128;

    private static final Pattern INDEX = Pattern.compile("[0-9]+");
    private static final Pattern GPU_UUID = Pattern.compile("GPU-[0-9A-Fa-f-]*[0-9A-Fa-f][0-9A-Fa-f-]*");
    private static final Pattern MIG_UUID = Pattern.compile("MIG-[0-9A-Za-z/-]*[0-9A-Za-z][0-9A-Za-z/-]*");

    static VisibilityEntry invalid(String problem) {
        return new VisibilityEntry(null, null, null, null, problem);
    }

    /**
     * Resolves one entry, already stripped of the spaces and tabs around it.
     *
     * @param candidates the devices the variable selects from, which its indices number
     * @param detected   every detected device (a MIG entry's GPU is looked up there)
     * @param rangeText  the valid indices, for the message of one out of range
     * @param scope      qualifies "matches no device's UUID", e.g. {@code  among the 2 ROCR_VISIBLE_DEVICES left}
     * @param migs       maps MIG entries; {@code null} where MIG entries are invalid (every reader but CUDA)
     */
    static VisibilityEntry resolve(VisibilityReader reader, String entry, List<GpuDevice> candidates,
                                   List<GpuDevice> detected, String rangeText, String scope, MigMatcher migs) {
        if (entry.isEmpty()) {
            return invalid("is empty");
        }
        if (entry.length() > MAX_ENTRY_CHARS) {
            return invalid("is too long to be an index or a UUID");
        }
        if (INDEX.matcher(entry).matches()) {
            int index = entry.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(entry);
            if (index >= candidates.size()) {
                return invalid("is out of range (" + rangeText + ")");
            }
            GpuDevice device = candidates.get(index);
            return new VisibilityEntry(device, device, Kind.INDEX, null, null);
        }
        if (GPU_UUID.matcher(entry).matches()) {
            return resolveUuid(entry, candidates, scope);
        }
        if (MIG_UUID.matcher(entry).matches()) {
            if (migs == null) {
                return invalid("is a MIG device, which only CUDA understands");
            }
            return migs.resolve(entry, detected);
        }
        boolean plain = entry.chars().allMatch(c -> c >= 0x20 && c < 0x7f);
        return invalid(plain
                ? (reader == VisibilityReader.CUDA ? "is not an index, a GPU-… UUID or a MIG-… UUID"
                        : "is not an index or a GPU-… UUID")
                : "is not plain ASCII, so it is not an index or a UUID");
    }

    private static VisibilityEntry resolveUuid(String entry, List<GpuDevice> candidates, String scope) {
        List<GpuDevice> matches = candidates.stream()
                .filter(d -> d.uuid() != null && startsWithIgnoreCase(d.uuid(), entry))
                .toList();
        if (matches.size() == 1) {
            return new VisibilityEntry(matches.get(0), matches.get(0), Kind.GPU_UUID, null, null);
        }
        if (matches.size() > 1) {
            return invalid("matches the UUIDs of " + matches.size() + " devices ("
                    + matches.stream().map(d -> Integer.toString(d.index())).collect(Collectors.joining(", "))
                    + "), so it names none");
        }
        long noUuid = candidates.stream().filter(d -> d.uuid() == null).count();
        String problem = "matches no device's UUID" + scope;
        if (noUuid == candidates.size()) {
            problem += " (the probe gave no UUID for any device, so none can be named by UUID)";
        } else if (noUuid > 0) {
            problem += " (the probe gave no UUID for " + noUuid + " of the " + candidates.size() + " devices, so it"
                    + " cannot be matched against " + (noUuid == 1 ? "that one" : "those") + ")";
        }
        return invalid(problem);
    }

    /** Whether {@code text} starts with {@code prefix}, ignoring case: how UUID prefixes match. */
    static boolean startsWithIgnoreCase(String text, String prefix) {
        return text.regionMatches(true, 0, prefix, 0, prefix.length());
    }
}
