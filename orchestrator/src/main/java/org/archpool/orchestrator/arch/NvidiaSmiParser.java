package org.archpool.orchestrator.arch;

import static org.archpool.protocol.UntrustedText.quote;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.archpool.protocol.Platform;

/**
 * Reads what {@code nvidia-smi} prints on standard output.
 *
 * <p>{@link #parseQuery} reads {@code nvidia-smi --query-gpu=index,uuid,compute_cap,name --format=csv,noheader}
 * ({@link #QUERY_ARGUMENTS}), e.g. {@code 0, GPU-65af7ae3-370d-13bc-7a10-a93e8ff6d1e8, 9.0, NVIDIA H200}. nvidia-smi
 * separates values with ", " and quotes nothing, so the name, being last, is everything after the third comma.
 * {@link #parseList} reads {@code nvidia-smi -L}. nvidia-smi ignores {@code CUDA_VISIBLE_DEVICES}, and its index
 * follows PCI bus order, which a CUDA program sees only with {@code CUDA_DEVICE_ORDER=PCI_BUS_ID}.
 */
public final class NvidiaSmiParser {

    /** The arguments of the query whose output {@link #parseQuery} reads. */
    public static final List<String> QUERY_ARGUMENTS =
            List.of("--query-gpu=index,uuid,compute_cap,name", "--format=csv,noheader");

    /** The arguments of the listing whose output {@link #parseList} reads. */
    public static final List<String> LIST_ARGUMENTS = List.of("-L");

    private static final String TOOL = "nvidia-smi";

    /** Printed on standard output, with exit status 2, by nvidia-smi of older drivers (e.g. 470.x). */
    private static final Pattern COMPUTE_CAP_UNKNOWN =
            Pattern.compile("Field\\s+\"compute_cap\"\\s+is\\s+not\\s+a\\s+valid\\s+field\\s+to\\s+query\\.?");

    /** Printed on standard output when the driver is loaded but no GPU is present. */
    private static final String NO_DEVICES = "No devices were found";

    private static final Pattern INDEX = Pattern.compile("\\d{1,4}");

    private static final Pattern LIST_GPU =
            Pattern.compile("GPU\\s+(\\d{1,4}):\\s+(.+?)\\s+\\(UUID:\\s*([^()\\s]+)\\)");
    private static final Pattern LIST_MIG =
            Pattern.compile("MIG\\s+(\\S+)\\s+Device\\s+(\\d{1,4}):\\s+\\(UUID:\\s*([^()\\s]+)\\)");

    /** Where each value sits in a CSV line; -1 where the query did not ask for it. */
    private record Columns(int index, int uuid, int computeCap, int name, int count) {
        static final Columns QUERY = new Columns(0, 1, 2, 3, 4);

        /** The columns named by a header line such as {@code compute_cap, compute_mode, name, index}, or null. */
        static Columns fromHeader(String line) {
            String[] fields = line.split(",", -1);
            int index = -1;
            int uuid = -1;
            int computeCap = -1;
            int name = -1;
            for (int i = 0; i < fields.length; i++) {
                switch (fields[i].strip()) {
                    case "index" -> index = i;
                    case "uuid", "gpu_uuid" -> uuid = i;
                    case "compute_cap" -> computeCap = i;
                    case "name", "gpu_name" -> name = i;
                    default -> { }
                }
            }
            return computeCap < 0 ? null : new Columns(index, uuid, computeCap, name, fields.length);
        }
    }

    private NvidiaSmiParser() {
    }

    /**
     * Reads the output of {@code nvidia-smi} with {@link #QUERY_ARGUMENTS}: one CUDA device per line, in
     * nvidia-smi's order. Blank lines, CRLF and surrounding spaces are tolerated; so is a header line (then the
     * columns are found by name, any order, and {@code compute_cap} alone suffices). "No devices were found" and
     * empty output give an empty list.
     *
     * @throws ProbeOutputException for any other line, e.g. a compute capability of {@code [N/A]}, or the older
     *                              driver's {@code Field "compute_cap" is not a valid field to query.} (see
     *                              {@link #isComputeCapUnsupported})
     */
    public static List<GpuDevice> parseQuery(String stdout) throws ProbeOutputException {
        List<String> lines = ProbeLines.of(stdout);
        List<GpuDevice> devices = new ArrayList<>();
        Set<Integer> seen = new HashSet<>();
        Columns columns = null;
        for (String line : lines) {
            if (line.isEmpty() || line.equals(NO_DEVICES)) {
                continue;
            }
            if (COMPUTE_CAP_UNKNOWN.matcher(line).matches()) {
                throw new ProbeOutputException(TOOL,
                        "this driver's nvidia-smi cannot report compute capability (driver too old)", line);
            }
            if (columns == null) {
                columns = Columns.fromHeader(line);
                if (columns != null) {
                    continue;
                }
                columns = Columns.QUERY;
            }
            GpuDevice device = parseQueryLine(line, columns, devices.size());
            if (!seen.add(device.index())) {
                throw new ProbeOutputException(TOOL, "GPU index " + device.index() + " appears twice", line);
            }
            devices.add(device);
        }
        return List.copyOf(devices);
    }

    private static GpuDevice parseQueryLine(String line, Columns columns, int row) throws ProbeOutputException {
        boolean nameIsLast = columns.name() == columns.count() - 1;
        String[] fields = line.split(",", nameIsLast ? columns.count() : -1);
        if (fields.length != columns.count()) {
            throw new ProbeOutputException(TOOL,
                    "expected " + columns.count() + " comma-separated values, found " + fields.length, line);
        }
        int index = row;
        if (columns.index() >= 0) {
            String value = fields[columns.index()].strip();
            if (!INDEX.matcher(value).matches()) {
                throw new ProbeOutputException(TOOL, "GPU index " + quote(value) + " is not a number", line);
            }
            index = Integer.parseInt(value);
        }
        String cc = fields[columns.computeCap()].strip();
        ComputeCapability capability = ComputeCapability.tryParse(cc).orElse(null);
        if (capability == null) {
            String problem = isPlaceholder(cc)
                    ? "compute capability not available (" + cc + ")"
                    : "compute capability " + quote(cc) + " is not major.minor";
            throw new ProbeOutputException(TOOL, problem, line);
        }
        String uuid = columns.uuid() >= 0 ? valueOrNull(fields[columns.uuid()]) : null;
        String name = columns.name() >= 0 ? valueOrNull(fields[columns.name()]) : null;
        return new GpuDevice(Platform.CUDA, index, uuid, capability.cmakeArch(), name);
    }

    /**
     * Whether the output is the older driver's refusal {@code Field "compute_cap" is not a valid field to query.}
     * (printed on standard output, exit status 2): this nvidia-smi cannot report compute capability at all, so
     * the architecture has to be given explicitly.
     */
    public static boolean isComputeCapUnsupported(String stdout) {
        return ProbeLines.of(stdout).stream().anyMatch(l -> COMPUTE_CAP_UNKNOWN.matcher(l).matches());
    }

    /**
     * Reads the output of {@code nvidia-smi -L}: one entry per {@code GPU n: name (UUID: GPU-...)} line, each with
     * the {@code MIG profile Device n: (UUID: MIG-...)} lines that follow it. "No devices were found" and empty
     * output give an empty list.
     *
     * @throws ProbeOutputException for any other line, or a MIG line before the first GPU line
     */
    public static List<NvidiaSmiGpu> parseList(String stdout) throws ProbeOutputException {
        List<NvidiaSmiGpu> gpus = new ArrayList<>();
        Matcher gpu = null;
        List<NvidiaSmiMigDevice> migs = new ArrayList<>();
        for (String line : ProbeLines.of(stdout)) {
            if (line.isEmpty() || line.equals(NO_DEVICES)) {
                continue;
            }
            Matcher g = LIST_GPU.matcher(line);
            Matcher m = LIST_MIG.matcher(line);
            if (g.matches()) {
                if (gpu != null) {
                    gpus.add(listed(gpu, migs));
                    migs = new ArrayList<>();
                }
                gpu = g;
            } else if (m.matches()) {
                if (gpu == null) {
                    throw new ProbeOutputException(TOOL, "MIG device listed before any GPU", line);
                }
                migs.add(new NvidiaSmiMigDevice(Integer.parseInt(m.group(2)), m.group(1), m.group(3)));
            } else {
                throw new ProbeOutputException(TOOL, "not a 'GPU n: name (UUID: ...)' or MIG line", line);
            }
        }
        if (gpu != null) {
            gpus.add(listed(gpu, migs));
        }
        return List.copyOf(gpus);
    }

    private static NvidiaSmiGpu listed(Matcher gpu, List<NvidiaSmiMigDevice> migs) {
        return new NvidiaSmiGpu(Integer.parseInt(gpu.group(1)), gpu.group(2), gpu.group(3), migs);
    }

    private static boolean isPlaceholder(String value) {
        return value.startsWith("[") && value.endsWith("]");
    }

    private static String valueOrNull(String field) {
        String value = field.strip();
        return value.isEmpty() || isPlaceholder(value) ? null : value;
    }
}
