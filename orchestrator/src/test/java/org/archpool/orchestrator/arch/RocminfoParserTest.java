package org.archpool.orchestrator.arch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.archpool.protocol.Platform;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RocminfoParserTest {

    private static final String MI300X = "rocminfo/mi300x-x4-gfx942.txt";
    private static final String MI250X = "rocminfo/mi250x-gcd-gfx90a-lumi-4numa.txt";
    private static final String APU = "rocminfo/apu-780m-gfx1103-with-aie2-npu.txt";
    private static final String WSL = "rocminfo/rx7900xtx-gfx1100-wsl-no-gpu-uuid.txt";
    private static final String VEGA20 = "rocminfo/vega20-x8-gfx906-4numa-legacy-ansi.txt";

    private static GpuDevice hip(int index, String uuid, String arch, String name, String targetId) {
        return new GpuDevice(Platform.HIP, index, uuid, arch, name, targetId);
    }

    @Nested
    class CapturedOutputs {

        @Test
        void fourMi300xAfterTwoCpuAgents() throws Exception {
            assertThat(RocminfoParser.parse(Fixtures.read(MI300X))).containsExactly(
                    hip(0, "GPU-8d1457e2c20f59d2", "gfx942", "AMD Instinct MI300X", "gfx942:sramecc+:xnack-"),
                    hip(1, "GPU-b4fa34630e85d42a", "gfx942", "AMD Instinct MI300X", "gfx942:sramecc+:xnack-"),
                    hip(2, "GPU-e8986800e182538a", "gfx942", "AMD Instinct MI300X", "gfx942:sramecc+:xnack-"),
                    hip(3, "GPU-eff71edc82169115", "gfx942", "AMD Instinct MI300X", "gfx942:sramecc+:xnack-"));
        }

        @Test
        void oneMi250xGcdAfterFourCpuAgentsWithCaretNotationColourCodes() throws Exception {
            assertThat(RocminfoParser.parse(Fixtures.read(MI250X))).containsExactly(
                    hip(0, "GPU-a543f05567cbe736", "gfx90a", "AMD Instinct MI250X", "gfx90a:sramecc+:xnack-"));
        }

        @Test
        void apuSkipsCpuAndNpuAgentsIgnoresPlaceholderUuidAndGenericIsa() throws Exception {
            // Agent 1 is the CPU (its Name mentions "Radeon 780M"), Agent 3 the aie2 NPU (Device Type: DSP).
            assertThat(RocminfoParser.parse(Fixtures.read(APU))).containsExactly(
                    hip(0, null, "gfx1103", "AMD Radeon Graphics", "gfx1103"));
        }

        @Test
        void wslGpuAgentHasNoUuidLine() throws Exception {
            assertThat(RocminfoParser.parse(Fixtures.read(WSL))).containsExactly(
                    hip(0, null, "gfx1100", "AMD Radeon RX 7900 XTX", "gfx1100"));
        }

        @Test
        void legacyOutputWithRealEscapeCodesAndNoUuidLinesListsEightVega20() throws Exception {
            List<GpuDevice> gpus = RocminfoParser.parse(Fixtures.read(VEGA20));
            assertThat(gpus).hasSize(8);
            for (int i = 0; i < 8; i++) {
                assertThat(gpus.get(i)).isEqualTo(hip(i, null, "gfx906", "Vega 20", "gfx906"));
            }
        }

        @ParameterizedTest
        @ValueSource(strings = {MI300X, MI250X, APU, WSL, VEGA20})
        void crlfLineEndingsChangeNothing(String fixture) throws Exception {
            String text = Fixtures.read(fixture);
            assertThat(RocminfoParser.parse(text.replace("\n", "\r\n"))).isEqualTo(RocminfoParser.parse(text));
        }

        @ParameterizedTest
        @ValueSource(strings = {MI300X, MI250X, APU, WSL, VEGA20})
        void indentationAndPaddingChangeNothing(String fixture) throws Exception {
            String text = Fixtures.read(fixture);
            String flat = text.replaceAll("(?m)^[ \t]+", "").replaceAll("(?m)[ \t]+$", "");
            String tabbed = text.replaceAll("(?m)^  ", "\t").replaceAll(":[ ]+", ":\t");
            List<GpuDevice> expected = RocminfoParser.parse(text);
            assertThat(RocminfoParser.parse(flat)).isEqualTo(expected);
            assertThat(RocminfoParser.parse(tabbed)).isEqualTo(expected);
        }
    }

    @Nested
    class Variations {

        @Test
        void onlyCpuAgentsGiveNoDevice() throws Exception {
            String text = Fixtures.read(MI250X);
            String cpusOnly = text.substring(0, text.indexOf("*******\nAgent 5")) + "*** Done ***\n";
            assertThat(RocminfoParser.parse(cpusOnly)).isEmpty();
        }

        @Test
        void genericIsaListedFirstIsStillSkipped() throws Exception {
            String text = Fixtures.read(APU)
                    .replace("amdgcn-amd-amdhsa--gfx1103 ", "amdgcn-amd-amdhsa--gfx1103-TMP")
                    .replace("amdgcn-amd-amdhsa--gfx11-generic", "amdgcn-amd-amdhsa--gfx1103")
                    .replace("amdgcn-amd-amdhsa--gfx1103-TMP", "amdgcn-amd-amdhsa--gfx11-generic ");
            assertThat(text).contains("ISA 1").containsSubsequence("gfx11-generic", "ISA 2", "--gfx1103");
            assertThat(RocminfoParser.parse(text)).singleElement().returns("gfx1103", GpuDevice::targetId);
        }

        @Test
        void isaOfAnotherProcessorGivesNoTargetId() throws Exception {
            String text = Fixtures.read(MI250X).replace("--gfx90a:sramecc+:xnack-", "--gfx908:sramecc+:xnack-");
            assertThat(RocminfoParser.parse(text)).singleElement()
                    .returns("gfx90a", GpuDevice::arch)
                    .returns(null, GpuDevice::targetId);
        }

        @Test
        void agentNameWithFeaturesIsCutToTheProcessor() throws Exception {
            String text = Fixtures.read(MI250X).replace("Name:                    gfx90a\n",
                    "Name:                    gfx90a:sramecc+:xnack-\n");
            assertThat(RocminfoParser.parse(text)).singleElement()
                    .returns("gfx90a", GpuDevice::arch)
                    .returns("gfx90a:sramecc+:xnack-", GpuDevice::targetId);
        }

        @Test
        void blankMarketingNameAndBlankUuidGiveNull() throws Exception {
            String text = Fixtures.read(MI250X)
                    .replace("AMD Instinct MI250X", "")
                    .replace("GPU-a543f05567cbe736", "");
            assertThat(RocminfoParser.parse(text)).singleElement()
                    .returns(null, GpuDevice::name)
                    .returns(null, GpuDevice::uuid);
        }

        @Test
        void gpuBlockCutAfterDeviceTypeStillCountsWithoutTargetId() throws Exception {
            String text = Fixtures.read(WSL);
            String cut = text.substring(0, text.indexOf("  Cache Info:", text.indexOf("Agent 2"))) + "*** Done ***\n";
            assertThat(RocminfoParser.parse(cut)).containsExactly(
                    hip(0, null, "gfx1100", "AMD Radeon RX 7900 XTX", null));
        }
    }

    @Nested
    class Malformed {

        @ParameterizedTest
        @ValueSource(strings = {"", "\n", "  \r\n \n"})
        void emptyOutput(String text) {
            assertThatThrownBy(() -> RocminfoParser.parse(text))
                    .isInstanceOf(ProbeOutputException.class)
                    .hasMessage("rocminfo: printed nothing");
        }

        @Test
        void garbage() {
            assertThatThrownBy(() -> RocminfoParser.parse("bash: rocminfo: command not found\n"))
                    .isInstanceOf(ProbeOutputException.class)
                    .hasMessageContaining("no '*** Done ***' line")
                    .hasMessageContaining("\"bash: rocminfo: command not found\"");
        }

        @Test
        void outputCutBeforeTheEndMarker() {
            String text = Fixtures.read(MI300X);
            String cut = text.substring(0, text.indexOf("Agent 5"));
            assertThatThrownBy(() -> RocminfoParser.parse(cut))
                    .isInstanceOf(ProbeOutputException.class)
                    .hasMessageContaining("output is incomplete");
        }

        @Test
        void kernelModuleNotLoaded() {
            String text = "\u001B[31mROCk module is NOT loaded, possibly no GPU devices\u001B[0m\n";
            assertThatThrownBy(() -> RocminfoParser.parse(text))
                    .isInstanceOf(ProbeOutputException.class)
                    .hasMessageEndingWith("\"ROCk module is NOT loaded, possibly no GPU devices\"");
        }

        @Test
        void runtimeFailureEvenAfterTheEndMarker() {
            String text = Fixtures.read(MI250X) + "\u001B[31mhsa api call failure at: rocminfo.cc:1306\n"
                    + "\u001B[31mCall returned HSA_STATUS_ERROR_OUT_OF_RESOURCES\n\u001B[0m";
            assertThatThrownBy(() -> RocminfoParser.parse(text))
                    .isInstanceOf(ProbeOutputException.class)
                    .hasMessageContaining("the ROCm runtime reported a failure")
                    .hasMessageContaining("hsa api call failure at: rocminfo.cc:1306");
        }

        @Test
        void gpuAgentWithoutDeviceType() {
            String text = Fixtures.read(MI300X).replaceFirst(
                    "(Agent 4[\\s\\S]*?)  Device Type:             GPU {32}\n", "$1");
            assertThat(text).isNotEqualTo(Fixtures.read(MI300X));
            assertThatThrownBy(() -> RocminfoParser.parse(text))
                    .isInstanceOf(ProbeOutputException.class)
                    .hasMessageContaining("agent 4 has no 'Device Type:' line");
        }

        @Test
        void agentBlockCutToItsHeader() {
            String text = Fixtures.read(WSL);
            String cut = text.substring(0, text.indexOf("  Name:", text.indexOf("Agent 2"))) + "*** Done ***\n";
            assertThatThrownBy(() -> RocminfoParser.parse(cut))
                    .isInstanceOf(ProbeOutputException.class)
                    .hasMessageContaining("agent 2 has no 'Device Type:' line");
        }

        @Test
        void gpuAgentWithoutName() {
            String text = Fixtures.read(WSL).replace("  Name:                    gfx1100\n", "");
            assertThatThrownBy(() -> RocminfoParser.parse(text))
                    .isInstanceOf(ProbeOutputException.class)
                    .hasMessageContaining("GPU agent 2 has no 'Name:' line");
        }

        @Test
        void missingAgentHeader() {
            String text = Fixtures.read(MI300X).replace("Agent 4                  \n", "");
            assertThatThrownBy(() -> RocminfoParser.parse(text))
                    .isInstanceOf(ProbeOutputException.class)
                    .hasMessageContaining("expected Agent 4")
                    .hasMessageEndingWith("\"Agent 5\"");
        }

        @Test
        void gpuAgentNotNamedByAProcessor() {
            String text = Fixtures.read(WSL).replace("  Name:                    gfx1100\n",
                    "  Name:                    Navi 31\n");
            assertThatThrownBy(() -> RocminfoParser.parse(text))
                    .isInstanceOf(ProbeOutputException.class)
                    .hasMessage("rocminfo: GPU agent 2 is not named by a gfx processor: \"Name:                    Navi 31\"");
        }
    }
}
