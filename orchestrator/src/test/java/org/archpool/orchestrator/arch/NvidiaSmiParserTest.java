package org.archpool.orchestrator.arch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.archpool.protocol.Platform;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class NvidiaSmiParserTest {

    private static final String H200_QUERY = "nvidia-smi/query-index-uuid-compute_cap-name-csv-noheader-h200.txt";
    private static final String H200_UUID = "GPU-65af7ae3-370d-13bc-7a10-a93e8ff6d1e8";
    private static final String COMPUTE_CAP_UNKNOWN = "Field \"compute_cap\" is not a valid field to query.";

    private static GpuDevice cuda(int index, String uuid, String arch, String name) {
        return new GpuDevice(Platform.CUDA, index, uuid, arch, name);
    }

    @Nested
    class Query {

        @Test
        void queryArgumentsAreTheOnesTheH200FixtureWasCapturedWith() {
            assertThat(String.join(" ", NvidiaSmiParser.QUERY_ARGUMENTS))
                    .isEqualTo("--query-gpu=index,uuid,compute_cap,name --format=csv,noheader");
            assertThat(Fixtures.read(H200_QUERY.replace(".txt", ".source.txt")))
                    .contains("nvidia-smi " + String.join(" ", NvidiaSmiParser.QUERY_ARGUMENTS));
        }

        @Test
        void capturedH200() throws Exception {
            assertThat(NvidiaSmiParser.parseQuery(Fixtures.read(H200_QUERY)))
                    .containsExactly(cuda(0, H200_UUID, "90", "NVIDIA H200"));
        }

        @Test
        void capturedWithHeaderComputeCapOnly() throws Exception {
            assertThat(NvidiaSmiParser.parseQuery(Fixtures.read("nvidia-smi/query-compute_cap-csv-rtx40xx.txt")))
                    .containsExactly(cuda(0, null, "89", null));
        }

        @Test
        void capturedWithHeaderColumnsInAnotherOrder() throws Exception {
            String text = Fixtures.read("nvidia-smi/query-compute_cap-mode-driver-name-index-csv-header.txt");
            assertThat(NvidiaSmiParser.parseQuery(text)).containsExactly(
                    cuda(0, null, "70", "NVIDIA TITAN V"),
                    cuda(1, null, "89", "NVIDIA RTX 5880 Ada Generation"));
        }

        @Test
        void crlfBlankLinesAndSurroundingSpaces() throws Exception {
            String text = "\r\n  0, GPU-a, 8.6 ,  NVIDIA GeForce RTX 3090  \r\n\r\n1,GPU-b,12.0,NVIDIA RTX PRO 6000\r\n\n";
            assertThat(NvidiaSmiParser.parseQuery(text)).containsExactly(
                    cuda(0, "GPU-a", "86", "NVIDIA GeForce RTX 3090"),
                    cuda(1, "GPU-b", "120", "NVIDIA RTX PRO 6000"));
        }

        @Test
        void nameIsEverythingAfterTheThirdComma() throws Exception {
            assertThat(NvidiaSmiParser.parseQuery("3, GPU-x, 10.0, Some GPU, rev 2, OEM\n"))
                    .containsExactly(cuda(3, "GPU-x", "100", "Some GPU, rev 2, OEM"));
        }

        @Test
        void placeholderUuidIsNull() throws Exception {
            assertThat(NvidiaSmiParser.parseQuery("0, [N/A], 9.0, NVIDIA H100 80GB HBM3"))
                    .containsExactly(cuda(0, null, "90", "NVIDIA H100 80GB HBM3"));
        }

        @ParameterizedTest
        @ValueSource(strings = {"", "\n", " \r\n", "No devices were found\n"})
        void noDevice(String text) throws Exception {
            assertThat(NvidiaSmiParser.parseQuery(text)).isEmpty();
        }

        @Test
        void unavailableComputeCapability() {
            String line = "0, " + H200_UUID + ", [N/A], NVIDIA H200";
            assertThatThrownBy(() -> NvidiaSmiParser.parseQuery(line + "\n"))
                    .isInstanceOf(ProbeOutputException.class)
                    .hasMessage("nvidia-smi: compute capability not available ([N/A]): \"" + line + "\"")
                    .extracting(e -> ((ProbeOutputException) e).offendingLine()).isEqualTo("\"" + line + "\"");
        }

        @Test
        void olderDriverRejectsComputeCap() {
            String stdout = COMPUTE_CAP_UNKNOWN + "\n\n";
            assertThat(NvidiaSmiParser.isComputeCapUnsupported(stdout)).isTrue();
            assertThatThrownBy(() -> NvidiaSmiParser.parseQuery(stdout))
                    .isInstanceOf(ProbeOutputException.class)
                    .hasMessageContaining("cannot report compute capability")
                    .hasMessageContaining(COMPUTE_CAP_UNKNOWN.replace("\"", "\\\""));
        }

        @Test
        void otherOutputIsNotTheOlderDriverMessage() {
            assertThat(NvidiaSmiParser.isComputeCapUnsupported(Fixtures.read(H200_QUERY))).isFalse();
            assertThat(NvidiaSmiParser.isComputeCapUnsupported("Field \"id\" is not a valid field to query."))
                    .isFalse();
            assertThat(NvidiaSmiParser.isComputeCapUnsupported("")).isFalse();
        }

        @ParameterizedTest
        @ValueSource(strings = {
            "Failed to initialize NVML: Driver/library version mismatch",
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
            "0, GPU-x, 9, NVIDIA H200",
            "0, GPU-x, 9.0a, NVIDIA H200",
            "zero, GPU-x, 9.0, NVIDIA H200",
            "0, GPU-x, 9.0",
        })
        void garbageAndTruncatedLines(String line) {
            assertThatThrownBy(() -> NvidiaSmiParser.parseQuery(Fixtures.read(H200_QUERY) + line + "\n"))
                    .isInstanceOf(ProbeOutputException.class)
                    .hasMessageStartingWith("nvidia-smi: ")
                    .hasMessageEndingWith("\"" + line + "\"");
        }

        @Test
        void valuesFromTheLineAreQuotedInTheProblemToo() {
            // colour codes are removed before parsing; a lone ESC, a bell or a bidi override stay and are escaped
            assertThatThrownBy(() -> NvidiaSmiParser.parseQuery("0, GPU-x, 9\u001b\u0007, NVIDIA H200\n"))
                    .isInstanceOf(ProbeOutputException.class)
                    .hasMessageStartingWith("nvidia-smi: compute capability \"9\\u001b\\u0007\" is not major.minor: ")
                    .message().doesNotContain("\u001b").doesNotContain("\u0007");
            assertThatThrownBy(() -> NvidiaSmiParser.parseQuery("\u202e0, GPU-x, 9.0, NVIDIA H200\n"))
                    .isInstanceOf(ProbeOutputException.class)
                    .hasMessageStartingWith("nvidia-smi: GPU index \"\\u202e0\" is not a number: ")
                    .message().doesNotContain("\u202e");
        }

        @Test
        void duplicateIndex() {
            String text = Fixtures.read(H200_QUERY) + Fixtures.read(H200_QUERY);
            assertThatThrownBy(() -> NvidiaSmiParser.parseQuery(text))
                    .isInstanceOf(ProbeOutputException.class)
                    .hasMessageContaining("GPU index 0 appears twice");
        }

        @Test
        void longLinesAreCutInTheMessage() {
            String line = "x".repeat(5000);
            assertThatThrownBy(() -> NvidiaSmiParser.parseQuery(line))
                    .isInstanceOf(ProbeOutputException.class)
                    .satisfies(e -> {
                        assertThat(((ProbeOutputException) e).offendingLine())
                                .isEqualTo("\"" + "x".repeat(ProbeOutputException.MAX_QUOTED_CHARS)
                                        + "\"... (5000 characters in all)");
                        assertThat(e.getMessage()).hasSizeLessThan(300);
                    });
        }
    }

    @Nested
    class ComputeCapabilities {

        @ParameterizedTest
        @CsvSource({"9.0, 90", "12.0, 120", "10.0, 100", "8.6, 86", "7.5, 75", "12.1, 121", "5.0, 50"})
        void cmakeSpelling(String cc, String arch) throws Exception {
            assertThat(ComputeCapability.tryParse(cc)).get().returns(arch, ComputeCapability::cmakeArch);
            assertThat(NvidiaSmiParser.parseQuery("0, GPU-x, " + cc + ", n")).singleElement()
                    .returns(arch, GpuDevice::arch);
        }

        @ParameterizedTest
        @ValueSource(strings = {"", "9", "90", "9.0a", "0.5", "9.10", "[N/A]", "sm_90", "9,0"})
        void notComputeCapabilities(String text) {
            assertThat(ComputeCapability.tryParse(text)).isEmpty();
        }
    }

    @Nested
    class ListGpus {

        @Test
        void capturedH200() throws Exception {
            assertThat(NvidiaSmiParser.parseList(Fixtures.read("nvidia-smi/L-1x-h200.txt")))
                    .containsExactly(new NvidiaSmiGpu(0, "NVIDIA H200", H200_UUID, List.of()));
        }

        @Test
        void twoA100() throws Exception {
            assertThat(NvidiaSmiParser.parseList(Fixtures.read("nvidia-smi/L-2x-a100-pcie.txt"))).containsExactly(
                    new NvidiaSmiGpu(0, "NVIDIA A100-PCIE-40GB", "GPU-63110aaa-3561-c8f5-e125-4ab40bbcf838", List.of()),
                    new NvidiaSmiGpu(1, "NVIDIA A100-PCIE-40GB", "GPU-c9bd25dc-c0c4-3ab6-8f7f-3ad16d6bde4a", List.of()));
        }

        @Test
        void eightQuadroWithoutNvidiaPrefix() throws Exception {
            List<NvidiaSmiGpu> gpus = NvidiaSmiParser.parseList(Fixtures.read("nvidia-smi/L-8x-quadro-rtx8000.txt"));
            assertThat(gpus).extracting(NvidiaSmiGpu::index).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
            assertThat(gpus).extracting(NvidiaSmiGpu::name).containsOnly("Quadro RTX 8000");
            assertThat(gpus).extracting(NvidiaSmiGpu::uuid).containsExactly(
                    "GPU-6b201039-6477-dd9c-1edd-137c8c44f8d6", "GPU-dbd81806-9040-9cc3-9eb9-87684fa2b7a4",
                    "GPU-b4524d9e-858d-1050-1b4d-4fe0c94e8ea8", "GPU-51c72de5-fdc2-94b1-59e6-a12d4e961695",
                    "GPU-bf443bbf-8598-8e63-e10c-e23ca737da84", "GPU-b20d26a5-5f6f-5c96-9d2e-ba6bfbb5d9a0",
                    "GPU-5a497672-18a9-95c7-5b61-74353dd9c9cb", "GPU-9f690c37-bb84-1e1a-1e4a-3dbfd1b1015c");
            assertThat(gpus).allSatisfy(g -> assertThat(g.migDevices()).isEmpty());
        }

        @Test
        void mixedProductNames() throws Exception {
            assertThat(NvidiaSmiParser.parseList(Fixtures.read("nvidia-smi/L-mixed-t1000-v100.txt"))).containsExactly(
                    new NvidiaSmiGpu(0, "NVIDIA T1000", "GPU-c05fe28c-5935-1c6d-3633-2fc61d26b6d4", List.of()),
                    new NvidiaSmiGpu(1, "Tesla V100-PCIE-16GB", "GPU-b08ecee0-0ea5-7b07-d459-baa5b95f5e89", List.of()));
        }

        @Test
        void podWithOneMigSlice() throws Exception {
            assertThat(NvidiaSmiParser.parseList(Fixtures.read("nvidia-smi/L-dgx-a100-pod-one-mig-slice.txt")))
                    .containsExactly(new NvidiaSmiGpu(0, "NVIDIA A100-SXM4-40GB",
                            "GPU-c9297a60-5079-9a56-b935-51e08dc0f65e",
                            List.of(new NvidiaSmiMigDevice(0, "1g.5gb", "MIG-1c5876e6-d3b9-524a-9eb4-664fcfbd4de2"))));
        }

        @Test
        void migDevicesBelongToTheGpuAboveThem() throws Exception {
            String text = "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-a)\r\n"
                    + "  MIG 3g.20gb Device 0: (UUID: MIG-GPU-a/1/0)\r\n"
                    + "  MIG 1g.5gb  Device 1: (UUID: MIG-GPU-a/9/0)\r\n"
                    + "GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-b)\r\n"
                    + "GPU 2: Odd (Rev. 2) Name (UUID: GPU-c)\r\n";
            assertThat(NvidiaSmiParser.parseList(text)).containsExactly(
                    new NvidiaSmiGpu(0, "NVIDIA A100-SXM4-40GB", "GPU-a", List.of(
                            new NvidiaSmiMigDevice(0, "3g.20gb", "MIG-GPU-a/1/0"),
                            new NvidiaSmiMigDevice(1, "1g.5gb", "MIG-GPU-a/9/0"))),
                    new NvidiaSmiGpu(1, "NVIDIA A100-SXM4-40GB", "GPU-b", List.of()),
                    new NvidiaSmiGpu(2, "Odd (Rev. 2) Name", "GPU-c", List.of()));
        }

        @ParameterizedTest
        @ValueSource(strings = {"", "\n\n", "No devices were found"})
        void noDevice(String text) throws Exception {
            assertThat(NvidiaSmiParser.parseList(text)).isEmpty();
        }

        @Test
        void migLineWithoutGpu() {
            assertThatThrownBy(() -> NvidiaSmiParser.parseList("  MIG 1g.5gb Device 0: (UUID: MIG-x)\n"))
                    .isInstanceOf(ProbeOutputException.class)
                    .hasMessageContaining("MIG device listed before any GPU");
        }

        @ParameterizedTest
        @ValueSource(strings = {
            "Failed to initialize NVML: Driver/library version mismatch",
            "GPU 0: NVIDIA H200",
            "GPU 0: NVIDIA H200 (UUID: GPU-65af7ae3-370d",
            "0, GPU-65af7ae3-370d-13bc-7a10-a93e8ff6d1e8, 9.0, NVIDIA H200",
        })
        void garbageAndTruncatedLines(String line) {
            assertThatThrownBy(() -> NvidiaSmiParser.parseList(Fixtures.read("nvidia-smi/L-1x-h200.txt") + line))
                    .isInstanceOf(ProbeOutputException.class)
                    .hasMessageEndingWith("\"" + line + "\"");
        }
    }
}
