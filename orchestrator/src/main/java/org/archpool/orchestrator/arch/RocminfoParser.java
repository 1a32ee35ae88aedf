package org.archpool.orchestrator.arch;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.archpool.protocol.Platform;

/**
 * Reads what plain {@code rocminfo} (no options) prints on standard output: one {@link GpuDevice} per agent
 * whose {@code Device Type:} is {@code GPU}, in the order the ROCm runtime enumerates them. CPU agents (one per
 * NUMA node) and other agents such as the {@code aie2} NPU ({@code Device Type: DSP}) are skipped, so "Agent 5"
 * may well be GPU 0.
 *
 * <p>Per GPU agent: the first {@code Name:} ({@code gfx90a}) gives the arch, {@code Marketing Name:} the name,
 * {@code Uuid:} the UUID (absent in old versions and under WSL; {@code GPU-XX} when the device has none: both
 * give {@code null}), and the first non-generic ISA {@code Name:} of the same processor
 * ({@code amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-}) the target ID.
 *
 * <p>Matching ignores indentation, padding, CRLF and terminal colour codes. The output must be complete:
 * rocminfo prints {@code *** Done ***} only after it has listed every agent, and prints
 * {@code hsa api call failure at: ...} on standard output when a runtime call fails; a missing end marker, such a
 * failure, or a GPU agent block without a readable name is reported as {@link ProbeOutputException}.
 */
public final class RocminfoParser {

    private static final String TOOL = "rocminfo";
    private static final Pattern AGENT_HEADER = Pattern.compile("Agent\\s+(\\d{1,6})");
    private static final Pattern STARS = Pattern.compile("\\*+");
    private static final String DONE = "*** Done ***";
    private static final String HSA_FAILURE = "hsa api call failure";
    /** {@code <arch>-<vendor>-<os>-<environment>-<target id>}, environment usually empty: {@code amdgcn-amd-amdhsa--}. */
    private static final Pattern ISA_NAME = Pattern.compile("amdgcn-[^-]*-[^-]*-[^-]*-(.+)");
    private static final Pattern REAL_UUID = Pattern.compile("GPU-[0-9A-Fa-f]+");

    /** What one agent block said; fields are null where its line was absent. */
    private static final class Agent {
        final int number;
        final String header;
        String name;
        String nameLine;
        String uuid;
        String marketingName;
        String deviceType;
        boolean inIsaInfo;
        final List<String> isaNames = new ArrayList<>();

        Agent(int number, String header) {
            this.number = number;
            this.header = header;
        }
    }

    private RocminfoParser() {
    }

    /**
     * The GPU agents of a complete rocminfo output; empty when the runtime lists no GPU agent.
     *
     * @throws ProbeOutputException when the output is empty, incomplete, reports a runtime failure, or holds a
     *                              GPU agent that cannot be read
     */
    public static List<GpuDevice> parse(String stdout) throws ProbeOutputException {
        List<String> lines = ProbeLines.of(stdout);
        String lastNonBlank = null;
        boolean done = false;
        for (String line : lines) {
            if (line.contains(HSA_FAILURE)) {
                throw new ProbeOutputException(TOOL, "the ROCm runtime reported a failure", line);
            }
            if (!line.isEmpty()) {
                lastNonBlank = line;
            }
            done |= line.equals(DONE);
        }
        if (lastNonBlank == null) {
            throw new ProbeOutputException(TOOL, "printed nothing", null);
        }
        if (!done) {
            throw new ProbeOutputException(TOOL,
                    "output is incomplete (no '" + DONE + "' line); its last line is", lastNonBlank);
        }

        List<GpuDevice> gpus = new ArrayList<>();
        Agent agent = null;
        for (String line : lines) {
            Matcher header = AGENT_HEADER.matcher(line);
            if (header.matches()) {
                int number = Integer.parseInt(header.group(1));
                int expected = agent == null ? 1 : agent.number + 1;
                if (number != expected) {
                    throw new ProbeOutputException(TOOL,
                            "agents are not numbered 1, 2, ...: expected Agent " + expected, line);
                }
                addIfGpu(agent, gpus);
                agent = new Agent(number, line);
            } else if (line.equals(DONE)) {
                break;
            } else if (agent != null && !STARS.matcher(line).matches()) {
                read(agent, line);
            }
        }
        addIfGpu(agent, gpus);
        return List.copyOf(gpus);
    }

    private static void read(Agent agent, String line) {
        int colon = line.indexOf(':');
        if (colon < 0) {
            return;
        }
        String key = line.substring(0, colon).strip();
        String value = line.substring(colon + 1).strip();
        if (key.equals("ISA Info")) {
            agent.inIsaInfo = true;
        } else if (key.equals("Name")) {
            if (value.startsWith("amdgcn-")) {
                agent.isaNames.add(value);
            } else if (!agent.inIsaInfo && agent.name == null) {
                agent.name = value;
                agent.nameLine = line;
            }
        } else if (!agent.inIsaInfo) {
            switch (key) {
                case "Uuid" -> agent.uuid = firstOf(agent.uuid, value);
                case "Marketing Name" -> agent.marketingName = firstOf(agent.marketingName, value);
                case "Device Type" -> agent.deviceType = firstOf(agent.deviceType, value);
                default -> { }
            }
        }
    }

    private static String firstOf(String seen, String value) {
        return seen != null ? seen : value;
    }

    private static void addIfGpu(Agent agent, List<GpuDevice> gpus) throws ProbeOutputException {
        if (agent == null) {
            return;
        }
        if (agent.deviceType == null) {
            throw new ProbeOutputException(TOOL,
                    "agent " + agent.number + " has no 'Device Type:' line (truncated block?)", agent.header);
        }
        if (!agent.deviceType.equals("GPU")) {
            return;
        }
        if (agent.name == null) {
            throw new ProbeOutputException(TOOL,
                    "GPU agent " + agent.number + " has no 'Name:' line (truncated block?)", agent.header);
        }
        AmdTargetId processor = AmdTargetId.tryParse(agent.name).orElseThrow(() -> new ProbeOutputException(TOOL,
                "GPU agent " + agent.number + " is not named by a gfx processor", agent.nameLine));
        String arch = processor.processor();
        String targetId = agent.isaNames.stream()
                .map(RocminfoParser::targetIdOfIsa)
                .flatMap(Optional::stream)
                .filter(t -> !t.isGeneric() && t.processor().equals(arch))
                .findFirst()
                .map(AmdTargetId::toString)
                .orElse(null);
        String uuid = agent.uuid != null && REAL_UUID.matcher(agent.uuid).matches() ? agent.uuid : null;
        String name = agent.marketingName == null || agent.marketingName.isEmpty() ? null : agent.marketingName;
        gpus.add(new GpuDevice(Platform.HIP, gpus.size(), uuid, arch, name, targetId));
    }

    private static Optional<AmdTargetId> targetIdOfIsa(String isaName) {
        Matcher m = ISA_NAME.matcher(isaName);
        return m.matches() ? AmdTargetId.tryParse(m.group(1)) : Optional.empty();
    }
}
