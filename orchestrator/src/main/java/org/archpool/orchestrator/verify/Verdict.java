package org.archpool.orchestrator.verify;

import java.util.List;

/**
 * The judgement on one job's artifacts.
 *
 * @param failure  why the job fails, or null when it passes
 * @param warnings what the user should know even so
 */
public record Verdict(String failure, List<String> warnings) {
    public Verdict {
        warnings = List.copyOf(warnings);
    }

    public static Verdict pass() {
        return new Verdict(null, List.of());
    }

    public boolean passed() {
        return failure == null;
    }
}
