package org.archpool.orchestrator.arch;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * "Did you mean ..." for architecture names: the known spellings nearest to what was written, by edit distance
 * (insertions, deletions, substitutions and swaps of neighbours each count 1), then by how preferable the
 * target is, then by how long a prefix it shares with what was written.
 */
final class ArchSuggestions {

    /** The most suggestions a message offers. */
    static final int MAX = 3;

    /**
     * A spelling that may be suggested.
     *
     * @param name the spelling, as the user would write it
     * @param tier 0 for the targets to prefer; higher for less likely ones (generic, member-only, pre-release)
     */
    record Candidate(String name, int tier) {
    }

    private ArchSuggestions() {
    }

    /**
     * Up to {@link #MAX} candidates close to {@code written}: within distance 1 for up to 4 characters, 2 for up to
     * 8, else 3; the closest first.
     */
    static List<String> nearest(String written, List<Candidate> candidates) {
        int limit = written.length() <= 4 ? 1 : written.length() <= 8 ? 2 : 3;
        record Scored(Candidate candidate, int distance, int prefix, int index) {
        }
        List<Scored> scored = new ArrayList<>();
        for (int i = 0; i < candidates.size(); i++) {
            Candidate c = candidates.get(i);
            int d = distance(written, c.name());
            if (d <= limit) {
                scored.add(new Scored(c, d, commonPrefix(written, c.name()), i));
            }
        }
        scored.sort(Comparator.comparingInt(Scored::distance)
                .thenComparingInt(s -> s.candidate().tier())
                .thenComparing(Comparator.comparingInt(Scored::prefix).reversed())
                .thenComparingInt(Scored::index));
        Set<String> out = new LinkedHashSet<>();
        for (Scored s : scored) {
            if (out.size() == MAX) {
                break;
            }
            out.add(s.candidate().name());
        }
        return List.copyOf(out);
    }

    /** The first {@link #MAX} distinct entries of {@code first} then {@code second}. */
    static List<String> merge(List<String> first, List<String> second) {
        Set<String> out = new LinkedHashSet<>(first);
        out.addAll(second);
        return out.stream().limit(MAX).toList();
    }

    /** {@code " Did you mean a, b or c?"}, or {@code ""} for none. */
    static String didYouMean(List<String> suggestions) {
        return suggestions.isEmpty() ? "" : " Did you mean " + orList(suggestions) + "?";
    }

    /** {@code a}, {@code a or b}, {@code a, b or c}. */
    static String orList(List<String> items) {
        if (items.size() <= 1) {
            return String.join("", items);
        }
        return String.join(", ", items.subList(0, items.size() - 1)) + " or " + items.get(items.size() - 1);
    }

    /** Optimal string alignment distance (Damerau-Levenshtein without repeated edits of one substring). */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    private static int commonPrefix(String a, String b) {
        int n = Math.min(a.length(), b.length());
        int i = 0;
        while (i < n && a.charAt(i) == b.charAt(i)) {
            i++;
        }
        return i;
    }
}
