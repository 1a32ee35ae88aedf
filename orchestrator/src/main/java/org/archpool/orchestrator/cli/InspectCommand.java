package org.archpool.orchestrator.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.archpool.orchestrator.report.ReportWriter;
import org.archpool.worker.inspect.AmdCodeObject;
import org.archpool.worker.inspect.AmdKernel;
import org.archpool.worker.inspect.CudaCode;
import org.archpool.worker.inspect.FatbinEntry;
import org.archpool.worker.inspect.GpuCode;
import org.archpool.worker.inspect.GpuCodeInspector;
import org.archpool.worker.inspect.HipCode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code archpool inspect FILE…}: the GPU code inside binaries, read without any external tool. */
@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = "Print the GPU code that objects, shared libraries, executables, static libraries, offload"
                + " bundles, code objects and fat binaries contain: for CUDA, each fat-binary entry (cubin or PTX,"
                + " architecture, compressed or not); for HIP, each AMD code object (target ID, code object"
                + " version, kernels, and which need a hostcall buffer). Exit code 2 when a file cannot be read.")
public final class InspectCommand implements Callable<Integer> {

    @ParentCommand
    ArchpoolCommand parent;

    @Parameters(paramLabel = "FILE", arity = "1..*", description = "Files to inspect.")
    List<Path> files;

    @Option(names = "--json", description = "Print JSON: one object per file.")
    boolean json;

    @Override
    public Integer call() throws IOException {
        CliContext context = parent.context();
        GpuCodeInspector inspector = new GpuCodeInspector();
        List<Map<String, Object>> results = new ArrayList<>();
        int exit = ExitCodes.OK;
        for (Path file : files) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("path", file.toString());
            try {
                if (!Files.isRegularFile(file)) {
                    throw new IOException(Files.exists(file) ? "not a regular file" : "no such file");
                }
                describe(inspector.inspect(file), r);
            } catch (IOException e) {
                r.put("error", e.getMessage());
                exit = ExitCodes.USAGE;
            }
            results.add(r);
        }
        if (json) {
            context.out().println(new ReportWriter().toJson(results));
        } else {
            for (Map<String, Object> r : results) {
                print(context, r);
            }
        }
        return exit;
    }

    private static void describe(GpuCode code, Map<String, Object> r) {
        r.put("archs", code.archs());
        r.put("hostcallKernels", code.hostcallKernels());
        List<Map<String, Object>> cuda = new ArrayList<>();
        for (CudaCode c : code.cuda()) {
            FatbinEntry e = c.entry();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("source", c.source());
            m.put("kind", e.kind().name().toLowerCase(Locale.ROOT));
            m.put("arch", e.archName());
            m.put("compressed", e.compressed());
            m.put("hasCode", !e.isEmptyCubin());
            cuda.add(m);
        }
        r.put("cuda", cuda);
        List<Map<String, Object>> hip = new ArrayList<>();
        for (HipCode h : code.hip()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("source", h.source());
            m.put("bundleId", h.bundleId());
            m.put("targetId", h.targetId());
            m.put("compressed", h.compressed());
            m.put("size", h.size());
            AmdCodeObject object = h.codeObject();
            if (object != null) {
                m.put("codeObjectVersion", object.codeObjectVersion());
                m.put("metadataTarget", object.metadataTarget());
                List<Map<String, Object>> kernels = new ArrayList<>();
                for (AmdKernel k : object.kernels()) {
                    kernels.add(Map.of("name", k.name(), "needsHostcall", k.needsHostcall()));
                }
                m.put("kernels", kernels);
            }
            hip.add(m);
        }
        r.put("hip", hip);
        r.put("problems", code.problems());
    }

    @SuppressWarnings("unchecked")
    private static void print(CliContext context, Map<String, Object> r) {
        if (r.containsKey("error")) {
            context.err().println("archpool: " + r.get("path") + ": " + r.get("error"));
            return;
        }
        List<String> archs = (List<String>) r.get("archs");
        context.out().println(r.get("path") + ": " + (archs.isEmpty() ? "no GPU code" : String.join(" ", archs)));
        for (Map<String, Object> e : (List<Map<String, Object>>) r.get("cuda")) {
            context.out().println("  " + e.get("source") + "  " + e.get("kind") + " " + e.get("arch")
                    + (Boolean.TRUE.equals(e.get("compressed")) ? " (compressed)" : "")
                    + (Boolean.TRUE.equals(e.get("hasCode")) ? "" : " (no code: device-link stub)"));
        }
        for (Map<String, Object> h : (List<Map<String, Object>>) r.get("hip")) {
            StringBuilder line = new StringBuilder("  " + h.get("source") + "  amdgcn " + h.get("targetId"));
            if (Boolean.TRUE.equals(h.get("compressed"))) {
                line.append(" (compressed)");
            }
            if (h.containsKey("kernels")) {
                List<Map<String, Object>> kernels = (List<Map<String, Object>>) h.get("kernels");
                List<Object> hostcall = kernels.stream().filter(k -> Boolean.TRUE.equals(k.get("needsHostcall")))
                        .map(k -> k.get("name")).toList();
                line.append(", code object v").append(h.get("codeObjectVersion")).append(", ")
                        .append(kernels.size()).append(kernels.size() == 1 ? " kernel" : " kernels");
                if (!hostcall.isEmpty()) {
                    line.append(", needing a hostcall buffer: ")
                            .append(String.join(" ", hostcall.stream().map(String::valueOf).toList()));
                }
            } else {
                line.append(" (code object not read)");
            }
            context.out().println(line);
        }
        for (String p : (List<String>) r.get("problems")) {
            context.out().println("  problem: " + p);
        }
    }
}
