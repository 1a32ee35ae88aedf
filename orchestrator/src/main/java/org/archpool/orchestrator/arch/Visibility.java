package org.archpool.orchestrator.arch;

import java.util.List;

/**
 * Which detected devices the coordinator's own visibility variables left, and how.
 *
 * @param applied       the variables applied and what they selected, in words
 * @param visibleIndices the {@link GpuDevice#index()} of each device left, in the order selected
 */
public record Visibility(String applied, List<Integer> visibleIndices) {
    public Visibility {
        visibleIndices = List.copyOf(visibleIndices);
    }
}
