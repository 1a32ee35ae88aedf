package org.archpool.orchestrator.pool.slurm;

import java.util.Locale;

/**
 * A node's state as {@code sinfo} gives it: the state name with Slurm's suffixes ({@code idle}, {@code allocated},
 * {@code down*}, {@code mixed*}, {@code drained}…), and the reason an administrator or Slurm gave it, if any.
 *
 * @param reason why the node is down or drained ({@code Not responding}); null when Slurm gives none
 */
public record NodeState(String state, String reason) {

    /**
     * Whether Slurm has lost the node: its slurmd no longer answers the controller (the state ends with
     * {@code *}), or the node is down or failed.
     */
    public boolean lost() {
        String s = state.toLowerCase(Locale.ROOT);
        return s.endsWith("*") || s.startsWith("down") || s.startsWith("fail");
    }

    /** As the report gives it: {@code down* (Not responding)}. */
    @Override
    public String toString() {
        return reason == null ? state : state + " (" + reason + ")";
    }

    /**
     * One line of {@code sinfo --noheader --Node --format=%T|%E}, or null when it is not one.
     */
    static NodeState parse(String line) {
        String stripped = line.strip();
        if (stripped.isEmpty()) {
            return null;
        }
        String[] fields = stripped.split("\\|", 2);
        String reason = fields.length == 2 ? fields[1].strip() : "";
        return new NodeState(fields[0].strip(), reason.isEmpty() || reason.equals("none") ? null : reason);
    }
}
