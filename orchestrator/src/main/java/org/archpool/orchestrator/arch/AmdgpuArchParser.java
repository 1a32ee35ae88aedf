package org.archpool.orchestrator.arch;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.archpool.protocol.Platform;

/**
 * Reads what {@code amdgpu-arch} or {@code offload-arch} prints on standard output: one architecture per line,
 * once per device (two MI300X print {@code gfx942} twice), in the tool's order. Each line gives one
 * {@link GpuDevice} with no UUID and no name; its index counts the lines of its platform (for pure
 * {@code amdgpu-arch} output: the line number among non-empty lines).
 *
 * <p>Accepted lines, after blank lines, CRLF and surrounding spaces are dropped:
 * <ul>
 *   <li>{@code gfx942} (upstream LLVM, read from KFD sysfs): HIP, no target ID;</li>
 *   <li>{@code gfx942:sramecc+:xnack-} (upstream, through the HIP runtime): HIP, arch {@code gfx942}, that target ID;</li>
 *   <li>{@code gfx906   sramecc- xnack-} or {@code gfx906 VEGA20 1002:66AF amdgcn-amd-amdhsa} (legacy AOMP
 *       {@code offload-arch -c} / {@code -v}): the first column is the arch; the other columns are ignored and
 *       give no target ID, because that tool could take its capability column from a different device;</li>
 *   <li>{@code sm_90} ({@code offload-arch} on an NVIDIA machine, {@code nvptx-arch}): CUDA, arch {@code 90}.</li>
 * </ul>
 * Empty output gives an empty list, which the caller treats as "not detected" whatever the exit status. Any other
 * line (an error message, a {@code --verbose} line) is a {@link ProbeOutputException}.
 */
public final class AmdgpuArchParser {

    private static final String TOOL = "amdgpu-arch";
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");
    private static final Pattern NVPTX = Pattern.compile("sm_([1-9][0-9]*)");

    private AmdgpuArchParser() {
    }

    /**
     * The devices listed, in order; empty for empty output.
     *
     * @throws ProbeOutputException for a line that does not start with a gfx processor or {@code sm_NN}
     */
    public static List<GpuDevice> parse(String stdout) throws ProbeOutputException {
        List<GpuDevice> devices = new ArrayList<>();
        int hipIndex = 0;
        int cudaIndex = 0;
        for (String line : ProbeLines.of(stdout)) {
            if (line.isEmpty()) {
                continue;
            }
            String[] columns = WHITESPACE.split(line);
            String first = columns[0];
            AmdTargetId target = AmdTargetId.tryParse(first).orElse(null);
            Matcher nvptx = NVPTX.matcher(first);
            if (target != null && !target.isGeneric()) {
                String targetId = target.features().isEmpty() ? null : target.toString();
                devices.add(new GpuDevice(Platform.HIP, hipIndex++, null, target.processor(), null, targetId));
            } else if (nvptx.matches() && columns.length == 1) {
                devices.add(new GpuDevice(Platform.CUDA, cudaIndex++, null, nvptx.group(1), null));
            } else {
                throw new ProbeOutputException(TOOL, "not a GPU architecture line", line);
            }
        }
        return List.copyOf(devices);
    }
}
