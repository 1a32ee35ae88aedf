package org.archpool.orchestrator.arch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.archpool.orchestrator.tool.ToolOutput;
import org.archpool.orchestrator.tool.ToolRunner;
import org.archpool.protocol.Platform;

/**
 * Detects devices by running one probe tool and parsing what it prints. Every way it can go wrong — tool
 * missing, not executable, hanging, exiting non-zero, printing something unreadable — becomes a distinct
 * {@link ProbeReport} status instead of an exception.
 */
public final class ToolDetector implements DeviceDetector {

    /** Parses a tool's stdout into devices. */
    @FunctionalInterface
    public interface OutputParser {
        List<GpuDevice> parse(String stdout) throws ProbeOutputException;
    }

    private final Platform platform;
    private final List<String> command;
    private final OutputParser parser;
    private final ToolRunner runner;
    private final Duration timeout;

    public ToolDetector(Platform platform, List<String> command, OutputParser parser, ToolRunner runner,
                        Duration timeout) {
        this.platform = platform;
        this.command = List.copyOf(command);
        this.parser = parser;
        this.runner = runner;
        this.timeout = timeout;
    }

    /** {@code nvidia-smi --query-gpu=index,uuid,compute_cap,name --format=csv,noheader}. */
    public static ToolDetector nvidiaSmi(ToolRunner runner, Duration timeout) {
        List<String> command = new ArrayList<>(List.of("nvidia-smi"));
        command.addAll(NvidiaSmiParser.QUERY_ARGUMENTS);
        return new ToolDetector(Platform.CUDA, command, NvidiaSmiParser::parseQuery, runner, timeout);
    }

    /** {@code rocminfo}: GPU agents only. */
    public static ToolDetector rocminfo(ToolRunner runner, Duration timeout) {
        return new ToolDetector(Platform.HIP, List.of("rocminfo"), RocminfoParser::parse, runner, timeout);
    }

    /** {@code amdgpu-arch}: one architecture per line; the second source for HIP. */
    public static ToolDetector amdgpuArch(ToolRunner runner, Duration timeout) {
        return new ToolDetector(Platform.HIP, List.of("amdgpu-arch"),
                stdout -> AmdgpuArchParser.parse(stdout).stream().filter(d -> d.platform() == Platform.HIP).toList(),
                runner, timeout);
    }

    /**
     * The detectors the coordinator uses, in the order they are tried: rocminfo, then amdgpu-arch only when
     * rocminfo found nothing; nvidia-smi.
     */
    public static List<DeviceDetector> standard(ToolRunner runner, Duration timeout) {
        return new ArrayList<>(List.of(rocminfo(runner, timeout), amdgpuArch(runner, timeout),
                nvidiaSmi(runner, timeout)));
    }

    @Override
    public Platform platform() {
        return platform;
    }

    @Override
    public Detection detect() {
        String tool = command.get(0);
        ToolOutput out = runner.run(command, timeout);
        switch (out.status()) {
            case MISSING:
                return none("missing", out, tool + " is not on the PATH");
            case NOT_EXECUTABLE:
                return none("not_executable", out, out.problem());
            case TIMED_OUT:
                return none("timed_out", out, out.problem());
            case FAILED_TO_START:
                return none("failed", out, out.problem());
            case EXITED:
            default:
                break;
        }
        if (out.exitCode() != 0) {
            String said = firstLine(out.stdout().isBlank() ? out.stderr() : out.stdout());
            if (platform == Platform.CUDA && NvidiaSmiParser.isComputeCapUnsupported(out.stdout())) {
                return none("failed", out, "this driver's nvidia-smi cannot report compute capability (\"" + said
                        + "\"); pass --arch with the GPU's compute capability");
            }
            return none("failed", out, tool + " exited with status " + out.exitCode()
                    + (said.isEmpty() ? "" : ": " + said));
        }
        List<GpuDevice> devices;
        try {
            devices = parser.parse(out.stdout());
        } catch (ProbeOutputException e) {
            return none("unparseable", out, e.getMessage());
        }
        if (devices.isEmpty()) {
            return none("no_devices", out, tool + " ran but listed no GPU");
        }
        return new Detection(devices, new ProbeReport(tool, command, "detected", out.exitCode(), out.ms(),
                devices.size(), null));
    }

    private Detection none(String status, ToolOutput out, String message) {
        return new Detection(List.of(), new ProbeReport(command.get(0), command, status, out.exitCode(), out.ms(), 0,
                message));
    }

    private static String firstLine(String text) {
        String trimmed = text.strip();
        int nl = trimmed.indexOf('\n');
        String line = nl < 0 ? trimmed : trimmed.substring(0, nl).strip();
        return line.length() > 200 ? line.substring(0, 200) + "…" : line;
    }
}
