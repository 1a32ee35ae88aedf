package org.archpool.orchestrator.pool.slurm;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.archpool.orchestrator.pool.NodeSummary;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one build has seen of each Slurm node, and which nodes its workers are kept off for the rest of it. A node
 * is avoided once {@value #FAILED_STARTS_TO_AVOID} worker starts in a row failed there (Slurm's words name the
 * node), or once Slurm says it is lost (not responding, down) after a worker died there or a start failed there.
 * The avoided nodes go into every later worker's {@code srun --exclude}.
 */
final class SlurmNodes {

    private static final Logger LOG = LoggerFactory.getLogger(SlurmNodes.class);

    /** Failed starts in a row on one node after which the node is avoided. */
    static final int FAILED_STARTS_TO_AVOID = 2;

    /** How Slurm names the node in what it says about a step that failed there. */
    private static final List<Pattern> NODE_IN_SLURMS_WORDS = List.of(
            // srun: error: Task launch for StepId=4.0 failed on node node2: Communication connection failure
            Pattern.compile("failed on node ([^\\s:;,]+)"),
            // srun: error: Node failure on node2
            Pattern.compile("Node failure on ([^\\s:;,]+)"),
            // srun: error: node3: task 0: Exited with exit code 2
            Pattern.compile("srun: error: ([^\\s:;,]+): task \\d+:"));

    private static final class Node {
        int started;
        int deaths;
        int failedStarts;
        int failedInARow;
        NodeState state;
        boolean lost;
        String avoided;
    }

    private final NodeStates states;
    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private final List<String> avoided = new ArrayList<>();

    SlurmNodes(NodeStates states) {
        this.states = states;
    }

    /** The nodes avoided so far, in the order they were. */
    synchronized List<String> avoided() {
        return List.copyOf(avoided);
    }

    /** A worker said hello from {@code node} (null: it did not say where; nothing is recorded). */
    synchronized void started(String node) {
        if (node == null) {
            return;
        }
        Node n = node(node);
        n.started++;
        n.failedInARow = 0;
    }

    /**
     * A worker start failed; when Slurm's words in {@code reason} name the node, it counts against that node.
     *
     * @return whether they named a node: the failure was that node's, and a start elsewhere may work
     */
    boolean startFailed(String reason) {
        String node = nodeIn(reason);
        if (node == null) {
            return false;
        }
        synchronized (this) {
            Node n = node(node);
            n.failedStarts++;
            n.failedInARow++;
            if (n.avoided == null && n.failedInARow >= FAILED_STARTS_TO_AVOID) {
                avoid(node, n, n.failedInARow + " worker starts in a row failed there; the last: " + reason);
                return true;
            }
        }
        askSlurm(node, "a worker start there failed");
        return true;
    }

    /**
     * A worker that had started on {@code node} died (crashed, hung, broke the protocol): Slurm is asked whether
     * the node is lost.
     */
    void died(String node, String reason) {
        if (node == null) {
            return;
        }
        synchronized (this) {
            node(node).deaths++;
        }
        askSlurm(node, "worker death: " + reason);
    }

    /**
     * Every node the build saw. A node where workers died that Slurm had not called lost is asked once more: a
     * node that went away may be declared lost only seconds after its workers were found dead.
     */
    List<NodeSummary> summary() {
        List<String> unsettled;
        synchronized (this) {
            unsettled = nodes.entrySet().stream().filter(e -> e.getValue().deaths > 0 && !e.getValue().lost)
                    .map(Map.Entry::getKey).toList();
        }
        unsettled.forEach(node -> askSlurm(node, "workers died there"));
        synchronized (this) {
            return nodes.entrySet().stream().map(e -> {
                Node n = e.getValue();
                return new NodeSummary(e.getKey(), n.started, n.deaths, n.failedStarts,
                        n.state == null ? null : n.state.toString(), n.lost, n.avoided);
            }).toList();
        }
    }

    /** The node Slurm's words name, or null. */
    static String nodeIn(String slurmWords) {
        if (slurmWords == null) {
            return null;
        }
        for (Pattern pattern : NODE_IN_SLURMS_WORDS) {
            Matcher m = pattern.matcher(slurmWords);
            if (m.find()) {
                return m.group(1);
            }
        }
        return null;
    }

    /** Asks Slurm for the node's state; a lost node is marked so and avoided. */
    private void askSlurm(String node, String after) {
        Optional<NodeState> state = states.of(node);
        synchronized (this) {
            Node n = node(node);
            if (state.isEmpty()) {
                return;
            }
            n.state = state.get();
            if (!n.state.lost() || n.lost) {
                return;
            }
            n.lost = true;
            LOG.warn("node {} is lost: Slurm says it is {} ({})", node, n.state, after);
            if (n.avoided == null) {
                avoid(node, n, "Slurm says it is " + n.state + " (" + after + ")");
            }
        }
    }

    private void avoid(String name, Node node, String why) {
        node.avoided = why;
        avoided.add(name);
        LOG.warn("no more workers of this build start on node {}: {}", name, why);
    }

    private Node node(String name) {
        return nodes.computeIfAbsent(name, k -> new Node());
    }
}
