package org.archpool.orchestrator.arch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.archpool.protocol.Platform;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AmdgpuArchParserTest {

    private static GpuDevice hip(int index, String arch, String targetId) {
        return new GpuDevice(Platform.HIP, index, null, arch, null, targetId);
    }

    @Nested
    class CapturedOutputs {

        /** PowerShell transcript: the prompt line with the command, then amdgpu-arch's output. */
        @Test
        void windowsHipSdkListsOnlyTheIntegratedGpu() throws Exception {
            List<Fixtures.Step> steps = Fixtures.transcript(
                    Fixtures.read("amdgpu-arch/windows-hipsdk-6.1-amdgpu-arch-igpu-only.txt"),
                    Pattern.compile("PS [^>]*> (.*)"));
            assertThat(steps).hasSize(1);
            assertThat(steps.get(0).command()).endsWith("amdgpu-arch.exe'");
            assertThat(AmdgpuArchParser.parse(steps.get(0).output())).containsExactly(hip(0, "gfx1036", null));
        }

        @Nested
        class LegacyAompOffloadArch {

            private final List<Fixtures.Step> steps = Fixtures.transcript(
                    Fixtures.read("amdgpu-arch/aomp-offload-arch-legacy-gfx906-gfx900.txt"),
                    Pattern.compile("Login@Machine:~> (.*)"));

            @Test
            void capabilityColumnsGiveNoTargetId() throws Exception {
                String output = Fixtures.outputOf(steps, "$AOMP/bin/offload-arch -c");
                assertThat(output).isEqualTo("gfx906   sramecc- xnack-\n");
                assertThat(AmdgpuArchParser.parse(output)).containsExactly(hip(0, "gfx906", null));
            }

            @Test
            void capabilityColumnOfAnotherDeviceIsIgnored() throws Exception {
                // Device 0 is the gfx906, yet the capability column shows the gfx900's "xnack-" only.
                String output = Fixtures.outputOf(steps, "env ROCR_VISIBLE_DEVICES=0 $AOMP/bin/offload-arch -c");
                assertThat(output).isEqualTo("gfx906   xnack-\n");
                assertThat(AmdgpuArchParser.parse(output)).containsExactly(hip(0, "gfx906", null));
                assertThat(AmdgpuArchParser.parse(
                        Fixtures.outputOf(steps, "env ROCR_VISIBLE_DEVICES=1 $AOMP/bin/offload-arch -c")))
                        .containsExactly(hip(0, "gfx906", null));
            }

            @Test
            void verboseColumnsListBothDevices() throws Exception {
                assertThat(AmdgpuArchParser.parse(Fixtures.outputOf(steps, "$AOMP/bin/offload-arch -v")))
                        .containsExactly(hip(0, "gfx906", null), hip(1, "gfx900", null));
            }

            @Test
            void shellCrashMessageIsNotAnArchitecture() {
                String output = Fixtures.outputOf(steps, "env ROCR_VISIBLE_DEVICES= $AOMP/bin/offload-arch -c"
                        + " # Also for any other non-existent device index");
                assertThatThrownBy(() -> AmdgpuArchParser.parse(output))
                        .isInstanceOf(ProbeOutputException.class)
                        .hasMessage("amdgpu-arch: not a GPU architecture line: \"Segmentation fault (core dumped)\"");
            }
        }

        /** Not a capture: a format reference built from LLVM's sources (see its source note). */
        @Nested
        class LlvmFormatReference {

            private final List<String> blocks = blocksBetweenComments(
                    Fixtures.read("amdgpu-arch/llvm-offload-arch-format.txt"));

            @Test
            void kfdPathPrintsOneBareProcessorPerDevice() throws Exception {
                assertThat(AmdgpuArchParser.parse(blocks.get(0))).containsExactly(
                        hip(0, "gfx942", null), hip(1, "gfx942", null), hip(2, "gfx1100", null));
            }

            @Test
            void hipPathPrintsTheTargetId() throws Exception {
                assertThat(AmdgpuArchParser.parse(blocks.get(1)))
                        .containsExactly(hip(0, "gfx942", "gfx942:sramecc+:xnack-"));
            }

            @Test
            void nvptxLinesAreCudaDevices() throws Exception {
                assertThat(AmdgpuArchParser.parse(blocks.get(2))).containsExactly(
                        new GpuDevice(Platform.CUDA, 0, null, "90", null),
                        new GpuDevice(Platform.CUDA, 1, null, "80", null));
            }

            @Test
            void commentLinesAreNotToolOutput() {
                assertThatThrownBy(() -> AmdgpuArchParser.parse(
                        Fixtures.read("amdgpu-arch/llvm-offload-arch-format.txt")))
                        .isInstanceOf(ProbeOutputException.class)
                        .hasMessageContaining("\"# NOT a captured output");
            }

            private static List<String> blocksBetweenComments(String text) {
                List<String> blocks = new ArrayList<>();
                StringBuilder block = new StringBuilder();
                for (String line : text.split("\n")) {
                    if (line.startsWith("#")) {
                        if (block.length() > 0) {
                            blocks.add(block.toString());
                            block.setLength(0);
                        }
                    } else {
                        block.append(line).append('\n');
                    }
                }
                if (block.length() > 0) {
                    blocks.add(block.toString());
                }
                assertThat(blocks).hasSize(3);
                return blocks;
            }
        }
    }

    @Nested
    class Variations {

        @ParameterizedTest
        @ValueSource(strings = {"", "\n", " \r\n\r\n", "\t"})
        void emptyOutputDetectsNothing(String text) throws Exception {
            assertThat(AmdgpuArchParser.parse(text)).isEmpty();
        }

        @Test
        void crlfBlankLinesAndSpaces() throws Exception {
            assertThat(AmdgpuArchParser.parse("\r\n gfx90a:xnack- \r\n\r\ngfx90a:sramecc+:xnack-\r\ngfx1201\r\n"))
                    .containsExactly(
                            hip(0, "gfx90a", "gfx90a:xnack-"),
                            hip(1, "gfx90a", "gfx90a:sramecc+:xnack-"),
                            hip(2, "gfx1201", null));
        }

        @Test
        void mixedVendorsAreCountedPerPlatform() throws Exception {
            assertThat(AmdgpuArchParser.parse("gfx942\nsm_89\ngfx942\nsm_120\n")).containsExactly(
                    hip(0, "gfx942", null),
                    new GpuDevice(Platform.CUDA, 0, null, "89", null),
                    hip(1, "gfx942", null),
                    new GpuDevice(Platform.CUDA, 1, null, "120", null));
        }
    }

    @Nested
    class Malformed {

        @ParameterizedTest
        @ValueSource(strings = {
            "Failed to get device count: no ROCm-capable device is detected (error code: 100)",
            "Device 0 arch name: gfx942",
            "gfx11-generic",
            "GFX942",
            "gfx942:xnack",
            "sm_90a",
            "sm_90 extra",
            "\u001B[31merror\u001B[0m",
        })
        void lineThatIsNotAnArchitecture(String line) {
            assertThatThrownBy(() -> AmdgpuArchParser.parse("gfx942\n" + line + "\n"))
                    .isInstanceOf(ProbeOutputException.class)
                    .hasMessageStartingWith("amdgpu-arch: not a GPU architecture line: ");
        }
    }
}
