package org.archpool.orchestrator.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.archpool.orchestrator.report.ReportWriter;
import org.archpool.worker.inspect.CudaArchReader;
import org.archpool.worker.inspect.FatbinEntry;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code archpool inspect FILE…}: the GPU code inside binaries, read without any external tool. */
@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = "Print the GPU code that ELF objects, shared libraries and executables contain: for CUDA, each"
                + " fat-binary entry (cubin or PTX, architecture, compressed or not). Exit code 2 when a file cannot"
                + " be read.")
public final class InspectCommand implements Callable<Integer> {

    @ParentCommand
    ArchpoolCommand parent;

    @Parameters(paramLabel = "FILE", arity = "1..*", description = "Binaries to inspect.")
    List<Path> files;

    @Option(names = "--json", description = "Print JSON: one object per file.")
    boolean json;

    @Override
    public Integer call() throws IOException {
        CliContext context = parent.context();
        CudaArchReader reader = new CudaArchReader();
        List<Map<String, Object>> results = new ArrayList<>();
        int exit = ExitCodes.OK;
        for (Path file : files) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("path", file.toString());
            try {
                if (!Files.isRegularFile(file)) {
                    throw new IOException(Files.exists(file) ? "not a regular file" : "no such file");
                }
                List<FatbinEntry> entries = reader.read(file);
                r.put("archs", List.copyOf(reader.archNames(file)));
                List<Map<String, Object>> list = new ArrayList<>();
                for (FatbinEntry e : entries) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("kind", e.kind().name().toLowerCase(java.util.Locale.ROOT));
                    m.put("arch", e.archName());
                    m.put("compressed", e.compressed());
                    m.put("hasCode", !e.isEmptyCubin());
                    list.add(m);
                }
                r.put("cudaEntries", list);
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

    @SuppressWarnings("unchecked")
    private static void print(CliContext context, Map<String, Object> r) {
        if (r.containsKey("error")) {
            context.err().println("archpool: " + r.get("path") + ": " + r.get("error"));
            return;
        }
        List<String> archs = (List<String>) r.get("archs");
        context.out().println(r.get("path") + ": " + (archs.isEmpty() ? "no GPU code" : "cuda " + String.join(" ", archs)));
        for (Map<String, Object> e : (List<Map<String, Object>>) r.get("cudaEntries")) {
            context.out().println("  " + e.get("kind") + " " + e.get("arch")
                    + (Boolean.TRUE.equals(e.get("compressed")) ? " (compressed)" : "")
                    + (Boolean.TRUE.equals(e.get("hasCode")) ? "" : " (no code: device-link stub)"));
        }
    }
}
