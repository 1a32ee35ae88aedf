package org.archpool.worker.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cross-checks {@link AmdProcessors} (and the reader's processor and feature decoding) against LLVM 19:
 * {@code llc-19} compiles an empty kernel for every processor {@code llc-19 -march=amdgcn -mcpu=help} lists, and
 * {@code llvm-readelf-19} names the processor in each object's {@code e_flags}; and {@code llvm-readelf-19} names
 * every one of the 256 {@code EF_AMDGPU_MACH} values in synthetic headers. Skipped without the tools, failed
 * without them when {@code CI=true}. Takes a few seconds (compiles run in parallel).
 */
@Tag("process")
class AmdProcessorsLlcTest {

    private static final String HINT = "apt-get install llvm-19";
    /** Code object v5 or v6 header for the synthetic files (EI_ABIVERSION 3 is v5). */
    private static final int ABI_V5 = 3;
    /**
     * Values in the table that LLVM 19 does not know yet (added in LLVM 20 and later): gfx1250, gfx950, gfx1310,
     * gfx1154, gfx1153, gfx1251, gfx12-5-generic, gfx1172, gfx1170, gfx1171, gfx9-4-generic, gfx11-7-generic,
     * gfx13-generic.
     */
    private static final Set<Integer> NEWER_THAN_LLVM_19 = Set.of(0x49, 0x4f, 0x50, 0x57, 0x58, 0x5a, 0x5b, 0x5c,
            0x5d, 0x5e, 0x5f, 0x62, 0x63);
    private static final Pattern FILE = Pattern.compile("^File: (.*)$");
    private static final Pattern FLAGS = Pattern.compile("^\\s*Flags:\\s+(.*)$");
    private static final Pattern CPU = Pattern.compile("^\\s+(\\S+)\\s+- Select the \\S+ processor\\.$");

    @TempDir
    Path dir;

    @Test
    void everyProcessorLlcKnowsIsNamedAsLlvmReadelfNamesIt() throws Exception {
        Path llc = tool("llc");
        Path readelf = tool("llvm-readelf");
        List<String> cpus = cpus(llc);
        assertThat(cpus).as("llc-19 -mcpu=help").contains("gfx90a", "gfx942", "gfx1100", "gfx9-generic", "tahiti");
        Path ll = Files.writeString(dir.resolve("k.ll"), "define amdgpu_kernel void @k() { ret void }\n");

        Map<String, Path> objects = compileAll(llc, ll, cpus);
        Map<Path, String> flags = readelfFlags(readelf, new ArrayList<>(objects.values()));

        AmdCodeObjectReader reader = new AmdCodeObjectReader();
        int named = 0;
        for (Map.Entry<String, Path> e : objects.entrySet()) {
            String cpu = e.getKey();
            String[] tokens = flags.get(e.getValue()).split(",\\s*");
            int eFlags = Integer.decode(tokens[0]);
            int mach = eFlags & AmdProcessors.EF_AMDGPU_MACH;
            if (tokens.length == 1) {
                // "generic" and "generic-hsa" name no processor: EF_AMDGPU_MACH_NONE
                assertThat(mach).as(cpu).isZero();
                assertThat(AmdProcessors.name(mach)).as(cpu).isEmpty();
                assertThatThrownBy(() -> reader.read(e.getValue())).as(cpu)
                        .isInstanceOf(AmdCodeObjectFormatException.class).hasMessageContaining("no processor");
                continue;
            }
            String readelfName = tokens[1];
            AmdCodeObject co = reader.read(e.getValue());
            assertThat(AmdProcessors.name(mach)).as(cpu).hasValue(readelfName);
            assertThat(co.processor()).as(cpu).isEqualTo(readelfName);
            if (cpu.startsWith("gfx")) {
                assertThat(co.processor()).as("-mcpu").isEqualTo(cpu);
            } else {
                assertThat(co.processor()).as("alias " + cpu).startsWith("gfx"); // tahiti is gfx600, etc.
            }
            // with no feature asked for, llc writes "any" for supported features and "unsupported" for others
            assertThat(eFlags & 0x300).as(cpu + " xnack field").isEqualTo(AmdProcessors.supportsXnack(mach) ? 0x100 : 0);
            assertThat(eFlags & 0xc00).as(cpu + " sramecc field")
                    .isEqualTo(AmdProcessors.supportsSramecc(mach) ? 0x400 : 0);
            assertThat(co.targetId()).as(cpu).isEqualTo(co.processor());
            assertThat(co.metadataTarget()).as(cpu).isEqualTo("amdgcn-amd-amdhsa--" + co.processor());
            // measured: llc alone does not run the AMDGPU attributor that proves a kernel needs no hostcall buffer
            // ("amdgpu-no-hostcall-ptr"), so even this empty kernel gets one, as at clang -O0
            assertThat(co.kernels()).as(cpu).containsExactly(new AmdKernel("k", true));
            assertThat(co.codeObjectVersion()).as(cpu).isEqualTo(co.processor().endsWith("-generic") ? 6 : 5);
            named++;
        }
        assertThat(named).isGreaterThan(60);
    }

    @Test
    void everyMachValueIsNamedAsLlvmReadelfNamesIt() throws Exception {
        Path readelf = tool("llvm-readelf");
        List<Path> files = new ArrayList<>();
        for (int mach = 0; mach < 256; mach++) {
            byte[] image = new TestElf().machine(AmdCodeObjectReader.EM_AMDGPU)
                    .abi(AmdCodeObjectReader.ELFOSABI_AMDGPU_HSA, ABI_V5).flags(mach).build();
            files.add(Files.write(dir.resolve(String.format("mach%02x.o", mach)), image));
        }

        Map<Path, String> flags = readelfFlags(readelf, files);

        Set<Integer> unknownToReadelf = new TreeSet<>();
        for (int mach = 0; mach < 256; mach++) {
            String[] tokens = flags.get(files.get(mach)).split(",\\s*");
            assertThat(Integer.decode(tokens[0])).isEqualTo(mach);
            Optional<String> ours = AmdProcessors.name(mach);
            if (tokens.length > 1) {
                assertThat(ours).as("0x%02x", mach).hasValue(tokens[1]);
            } else {
                unknownToReadelf.add(mach);
                if (ours.isPresent()) {
                    assertThat(NEWER_THAN_LLVM_19).as("0x%02x = %s is unknown to llvm-readelf-19", mach, ours.get())
                            .contains(mach);
                }
            }
        }
        assertThat(unknownToReadelf).containsAll(NEWER_THAN_LLVM_19);
        assertThat(AmdProcessors.all().keySet()).containsAll(NEWER_THAN_LLVM_19);
        assertThat(256 - unknownToReadelf.size() + NEWER_THAN_LLVM_19.size()).as("values named")
                .isEqualTo(AmdProcessors.all().size());
    }

    private static Path tool(String name) {
        Map<String, String> env = System.getenv();
        Optional<Path> found = RequiredTool.findOnPath(name + "-19", env);
        if (found.isEmpty()) {
            found = RequiredTool.executable("/usr/lib/llvm-19/bin", name);
        }
        return RequiredTool.require(found, name + "-19", HINT, env);
    }

    private List<String> cpus(Path llc) throws Exception {
        String help = run(List.of(llc.toString(), "-march=amdgcn", "-mcpu=help"));
        List<String> cpus = new ArrayList<>();
        boolean inCpus = false;
        for (String line : help.split("\\R")) {
            if (line.startsWith("Available CPUs")) {
                inCpus = true;
            } else if (line.startsWith("Available features")) {
                break;
            } else if (inCpus) {
                Matcher m = CPU.matcher(line);
                if (m.matches()) {
                    cpus.add(m.group(1));
                }
            }
        }
        return cpus;
    }

    /** Compiles the kernel for every processor in parallel; generic processors need code object v6. */
    private Map<String, Path> compileAll(Path llc, Path ll, List<String> cpus) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(4, 2 * Runtime.getRuntime()
                .availableProcessors()));
        try {
            Map<String, Future<Path>> futures = new LinkedHashMap<>();
            for (String cpu : cpus) {
                futures.put(cpu, pool.submit(() -> {
                    Path out = dir.resolve(cpu + ".o");
                    List<String> command = new ArrayList<>(List.of(llc.toString(), "-mtriple=amdgcn-amd-amdhsa",
                            "-mcpu=" + cpu, "-filetype=obj", ll.toString(), "-o", out.toString()));
                    if (cpu.matches("gfx.*-generic")) {
                        command.add("--amdhsa-code-object-version=6");
                    }
                    run(command);
                    return out;
                }));
            }
            Map<String, Path> objects = new LinkedHashMap<>();
            for (Map.Entry<String, Future<Path>> e : futures.entrySet()) {
                objects.put(e.getKey(), e.getValue().get());
            }
            return objects;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Runs llvm-readelf -h on all the files at once; returns each file's {@code Flags:} value. */
    private Map<Path, String> readelfFlags(Path readelf, List<Path> files) throws Exception {
        List<String> command = new ArrayList<>(List.of(readelf.toString(), "-h"));
        files.forEach(f -> command.add(f.toString()));
        String out = run(command);
        Map<String, String> byName = new HashMap<>();
        String current = files.size() == 1 ? files.get(0).toString() : null;
        for (String line : out.split("\\R")) {
            Matcher file = FILE.matcher(line);
            Matcher flags = FLAGS.matcher(line);
            if (file.matches()) {
                current = file.group(1);
            } else if (flags.matches()) {
                assertThat(current).as("a File: line before Flags:").isNotNull();
                byName.put(current, flags.group(1).trim());
            }
        }
        Map<Path, String> result = new HashMap<>();
        for (Path f : files) {
            String value = byName.get(f.toString());
            assertThat(value).as("Flags of " + f + " in:\n" + out).isNotNull();
            result.put(f, value);
        }
        return result;
    }

    /** Runs a command with no input; returns stdout and stderr together; fails the test on a non-zero exit. */
    private String run(List<String> command) throws IOException, InterruptedException {
        Path output = Files.createTempFile(dir, "out", ".log");
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile()).redirectInput(new File("/dev/null")).start();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            fail("timed out: " + command);
        }
        String text = Files.readString(output, StandardCharsets.UTF_8);
        if (process.exitValue() != 0) {
            fail("exit code " + process.exitValue() + " from " + command + ":\n" + text);
        }
        return text;
    }
}
