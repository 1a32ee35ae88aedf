package org.archpool.orchestrator.arch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import java.util.stream.Stream;
import org.archpool.protocol.Platform;
import org.archpool.protocol.UntrustedText;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class ArchListTest {

    /** The message of the error that parsing {@code text} must give; also checks that it is safe to print. */
    static String error(Platform platform, String text) {
        ArchSyntaxException e = catchThrowableOfType(ArchSyntaxException.class, () -> ArchList.parse(platform, text));
        assertThat(e).as("parse(%s, %s) must fail", platform, UntrustedText.quote(text)).isNotNull();
        assertThat(e.getMessage()).as("printable ASCII only").matches("[\\x20-\\x7e]+");
        assertThat(e.getMessage().length()).as("bounded length").isLessThan(1600);
        return e.getMessage();
    }

    /** Each of {@code cases} on every platform, the platform first. */
    static Stream<Arguments> onEveryPlatform(Arguments... cases) {
        return Stream.of(Platform.values()).flatMap(p -> Stream.of(cases)
                .map(c -> Arguments.of(Stream.concat(Stream.of(p), Stream.of(c.get())).toArray())));
    }

    // ---------------------------------------------------------------- valid input -> canonical output

    @ParameterizedTest(name = "[{index}] {0} {1} -> {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            CUDA | 90                         | 90
            CUDA | 90a                        | 90a
            CUDA | 100f                       | 100f
            CUDA | 90-real                    | 90-real
            CUDA | 90-virtual                 | 90-virtual
            CUDA | 90a-virtual                | 90a-virtual
            CUDA | 100f-real                  | 100f-real
            CUDA | 80-real                    | 80-real
            CUDA | sm_90                      | 90-real
            CUDA | sm_90a                     | 90a-real
            CUDA | sm_100f                    | 100f-real
            CUDA | compute_90                 | 90-virtual
            CUDA | compute_90a                | 90a-virtual
            CUDA | compute_120f               | 120f-virtual
            CUDA | 9.0                        | 90
            CUDA | 9.0a                       | 90a
            CUDA | 10.0f                      | 100f
            CUDA | 12.1                       | 121
            CUDA | 8.6                        | 86
            CUDA | SM_90A                     | 90a-real
            CUDA | Compute_80                 | 80-virtual
            CUDA | 90A-REAL                   | 90a-real
            CUDA | 100F-Virtual               | 100f-virtual
            CUDA | all                        | all
            CUDA | ALL                        | all
            CUDA | all-major                  | all-major
            CUDA | All-Major                  | all-major
            CUDA | 50                         | 50
            CUDA | 70                         | 70
            CUDA | 72                         | 72
            CUDA | 87                         | 87
            CUDA | 88                         | 88
            CUDA | 101                        | 101
            CUDA | 103a                       | 103a
            CUDA | 110f                       | 110f
            CUDA | 121f                       | 121f
            CUDA | " 90, 80;90a  sm_90 compute_80 9.0 ;;" | 90,80,90a,90-real,80-virtual
            CUDA | 100f,120a-real             | 100f,120a-real
            CUDA | 70;75;80;86;89;90          | 70,75,80,86,89,90
            CUDA | 90,90-real,90-virtual      | 90,90-real,90-virtual
            HIP  | gfx942                     | gfx942
            HIP  | GFX942                     | gfx942
            HIP  | gfx90a:xnack-              | gfx90a:xnack-
            HIP  | GFX90A:XNACK-              | gfx90a:xnack-
            HIP  | gfx942:sramecc+:xnack-     | gfx942:sramecc+:xnack-
            HIP  | gfx942:xnack-:sramecc+     | gfx942:sramecc+:xnack-
            HIP  | gfx906:sramecc-            | gfx906:sramecc-
            HIP  | gfx900:xnack+              | gfx900:xnack+
            HIP  | gfx1010:xnack-             | gfx1010:xnack-
            HIP  | gfx90c                     | gfx90c
            HIP  | gfx1100                    | gfx1100
            HIP  | gfx1153                    | gfx1153
            HIP  | gfx1201                    | gfx1201
            HIP  | gfx940                     | gfx940
            HIP  | gfx9-generic               | gfx9-generic
            HIP  | gfx9-generic:xnack-        | gfx9-generic:xnack-
            HIP  | gfx9-4-generic             | gfx9-4-generic
            HIP  | gfx9-4-generic:xnack-:sramecc+ | gfx9-4-generic:sramecc+:xnack-
            HIP  | gfx10-1-generic:xnack+     | gfx10-1-generic:xnack+
            HIP  | gfx10-3-generic            | gfx10-3-generic
            HIP  | GFX11-GENERIC              | gfx11-generic
            HIP  | gfx12-generic              | gfx12-generic
            HIP  | "GFX942 gfx90a:xnack- gfx942,gfx11-generic gfx9-4-generic" | gfx942,gfx90a:xnack-,gfx11-generic,gfx9-4-generic
            HIP  | gfx90a:xnack+,gfx90a:xnack- | gfx90a:xnack+,gfx90a:xnack-
            HIP  | gfx942:sramecc+:xnack-;gfx942:xnack+:sramecc- | gfx942:sramecc+:xnack-,gfx942:sramecc-:xnack+
            HIP  | gfx942;gfx950;gfx9-4-generic | gfx942,gfx950,gfx9-4-generic
            """)
    void parsesToTheCanonicalForm(Platform platform, String text, String expected) throws Exception {
        assertThat(ArchList.parseToCmake(platform, text)).containsExactly(expected.split(","));
        assertThat(ArchList.cmakeNames(ArchList.parse(platform, text))).containsExactly(expected.split(","));
    }

    @Test
    void acceptsAsciiWhitespaceOfEveryKindAsSeparator() throws Exception {
        assertThat(ArchList.parseToCmake(Platform.CUDA, "90\t80\n86\r\n89 \t,;\r\n"))
                .containsExactly("90", "80", "86", "89");
        assertThat(ArchList.parseToCmake(Platform.HIP, "gfx942\r\n")).containsExactly("gfx942");
    }

    @Test
    void returnsValueTypes() throws Exception {
        List<GpuArch> archs = ArchList.parse(Platform.CUDA, "sm_90a,compute_100f");
        assertThat(archs).containsExactly(new CudaSm(90, CudaSm.Variant.ARCH_SPECIFIC, CudaSm.Code.REAL),
                new CudaSm(100, CudaSm.Variant.FAMILY_SPECIFIC, CudaSm.Code.VIRTUAL));
        assertThat(ArchList.parse(Platform.CUDA, "ALL")).containsExactly(CudaAll.ALL);
        assertThat(ArchList.parse(Platform.HIP, "gfx942:xnack-:sramecc+"))
                .containsExactly(new HipArch("gfx942", List.of("sramecc+", "xnack-")));
        assertThat(ArchList.parse(Platform.HIP, "gfx942")).allSatisfy(a -> assertThat(a.platform()).isEqualTo(Platform.HIP));
        assertThatThrownBy(() -> ArchList.parse(Platform.HIP, "gfx942").add(new HipArch("gfx90a")))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    // ---------------------------------------------------------------- duplicates

    @ParameterizedTest(name = "[{index}] {0} {1} -> {2}")
    @CsvSource(delimiter = '|', textBlock = """
            CUDA | sm_90,90-real                  | 90-real
            CUDA | 90-real,sm_90                  | 90-real
            CUDA | SM_90;sm_90;90-REAL            | 90-real
            CUDA | 9.0,90                         | 90
            CUDA | compute_90a,90a-virtual        | 90a-virtual
            CUDA | 10.0f 100f 100F                | 100f
            CUDA | 80,90,80,9.0                   | 80,90
            CUDA | 90,sm_80,80-real,90            | 90,80-real
            CUDA | all,ALL                        | all
            HIP  | gfx942:xnack-:sramecc+,gfx942:sramecc+:xnack- | gfx942:sramecc+:xnack-
            HIP  | GFX942,gfx942                  | gfx942
            HIP  | gfx90a:xnack-,gfx942,GFX90A:XNACK- | gfx90a:xnack-,gfx942
            """)
    void dropsDuplicatesOnTheCanonicalFormKeepingTheFirst(Platform platform, String text, String expected)
            throws Exception {
        assertThat(ArchList.parseToCmake(platform, text)).containsExactly(expected.split(","));
    }

    @Test
    void keepsDistinctCodeKindsAndFeatures() throws Exception {
        assertThat(ArchList.parseToCmake(Platform.CUDA, "90,90-real")).containsExactly("90", "90-real");
        assertThat(ArchList.parseToCmake(Platform.CUDA, "90,90a")).containsExactly("90", "90a");
        assertThat(ArchList.parseToCmake(Platform.HIP, "gfx90a:xnack-,gfx90a:xnack+"))
                .containsExactly("gfx90a:xnack-", "gfx90a:xnack+");
    }

    // ---------------------------------------------------------------- errors, with their message fragments

    @ParameterizedTest(name = "[{index}] {0} {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            HIP  | gfx942a              | "gfx942a" is not a known HIP architecture | Did you mean gfx942 | Fix: --arch gfx942
            HIP  | gfx9420              | "gfx9420"       | Did you mean gfx942     | Fix: --arch gfx942
            HIP  | gfx94                | "gfx94"         | Did you mean gfx942     | Fix: --arch gfx942
            HIP  | gfx-942              | "gfx-942"       | Did you mean gfx942     | Fix: --arch gfx942
            HIP  | 942                  | "942"           | Did you mean gfx942     | Accepted:
            HIP  | gfx1250              | not in archpool's table of known AMD targets | gfx1200 | Accepted:
            HIP  | gfx11-genric         | gfx11-generic   | Accepted:               | Fix: --arch gfx11-generic
            HIP  | gfx94:xnack-         | Did you mean gfx942:xnack- | Fix: --arch gfx942:xnack- | "gfx94:xnack-"
            HIP  | mi300x               | gfx942 (CDNA3: AMD Instinct MI300X, MI300A, MI325X) | Did you mean gfx942? | Fix: --arch gfx942
            HIP  | MI-300X              | Did you mean gfx942?  | "MI-300X"         | Fix: --arch gfx942
            HIP  | mi250x               | Did you mean gfx90a?  | MI250X            | Fix: --arch gfx90a
            HIP  | mi355x               | Did you mean gfx950?  | MI355X            | Fix: --arch gfx950
            HIP  | radeon-vii           | Did you mean gfx906?  | Radeon VII        | Fix: --arch gfx906
            HIP  | rx7900xtx            | Did you mean gfx1100? | 7900 XTX          | Fix: --arch gfx1100
            HIP  | rdna3                | gfx1100, gfx1101 or gfx1102 | RDNA3       | Fix: --arch gfx1100
            HIP  | h100                 | NVIDIA GPU      | 90 (Hopper          | Fix: --platform cuda --arch 90
            HIP  | 90                   | "90" is not a known HIP architecture | not a HIP architecture | Fix: --platform cuda --arch 90
            HIP  | 90a                  | not a HIP architecture | Did you mean gfx90a? | --platform cuda --arch 90a
            HIP  | sm_90                | not a HIP architecture | --platform cuda --arch 90-real | "sm_90"
            HIP  | rm                   | "rm" is not a known HIP architecture | Accepted: | Fix: --arch gfx942
            HIP  | gfx1100:xnack+       | gfx1100 has no target-ID features | Fix: --arch gfx1100 | "gfx1100:xnack+"
            HIP  | gfx1201:sramecc-     | gfx1201 has no target-ID features | Fix: --arch gfx1201 | sramecc
            HIP  | gfx900:sramecc+      | gfx900 has xnack only, not sramecc | Fix: --arch gfx900 | "gfx900:sramecc+"
            HIP  | gfx1010:sramecc+     | gfx1010 has xnack only, not sramecc | Fix: --arch gfx1010 | sramecc
            HIP  | gfx9-generic:sramecc+ | not available through gfx9-generic | gfx9-generic has xnack only | Fix: --arch gfx9-generic
            HIP  | gfx11-generic:xnack- | gfx11-generic has no target-ID features | Fix: --arch gfx11-generic | xnack
            HIP  | gfx942:xnack         | without a sign  | xnack+ (on) or xnack- (off) | Fix: --arch gfx942:xnack-
            HIP  | gfx942:xnack+:xnack- | more than once  | "gfx942:xnack+:xnack-"  | Fix: --arch gfx942
            HIP  | gfx942:xnack+:xnack+ | more than once  | xnack                   | Fix: --arch gfx942
            HIP  | gfx942:              | empty target feature | "gfx942:"          | Fix: --arch gfx942
            HIP  | gfx942::xnack-       | empty target feature | "gfx942::xnack-"   | Fix: --arch gfx942
            HIP  | gfx942:foo+          | only carry sramecc and xnack | "foo+"     | Fix: --arch gfx942
            HIP  | gfx942:wavefrontsize64+ | compiler option (-mwavefrontsize64) | only carry sramecc and xnack | Fix: --arch gfx942
            HIP  | gfx90a:tgsplit+      | compiler option (-mtgsplit) | not part of a target ID | Fix: --arch gfx90a
            HIP  | gfx906:sram-ecc+     | LLVM spells it sramecc | only carry | Fix: --arch gfx906
            HIP  | gfx942,gfx942:xnack- | "gfx942" and "gfx942:xnack-" cannot be built together | invalid offload arch combinations | gfx942:xnack+,gfx942:xnack-
            HIP  | gfx942:xnack-,gfx942 | "gfx942:xnack-" and "gfx942" cannot be built together | all of its entries or in none | --arch gfx942
            HIP  | gfx942:sramecc+:xnack-,gfx942:xnack+ | cannot be built together | invalid offload arch combinations | gfx942
            CUDA | sm90                 | "sm90" is not a known CUDA architecture | Did you mean sm_90? | Fix: --arch sm_90
            CUDA | sm_900               | "sm_900"        | Did you mean sm_90      | Fix: --arch sm_90
            CUDA | SM_9.0               | Did you mean sm_90 | Accepted:            | Fix: --arch sm_90
            CUDA | compute90            | Did you mean compute_90 | Accepted:       | Fix: --arch compute_90
            CUDA | 900                  | no compute capability 90.0 | Did you mean 90 | Fix: --arch 90
            CUDA | 95                   | no compute capability 9.5 | Did you mean 90 | Accepted:
            CUDA | 9,0                  | decimal comma   | Did you mean 9.0 or 90? | Fix: --arch 90
            CUDA | `80, 8,6`            | decimal comma   | Did you mean 8.6 or 86? | Fix: --arch 86
            CUDA | 12,1                 | decimal comma   | Did you mean 12.1 or 121? | Fix: --arch 121
            CUDA | 9                    | major and a minor digit | Did you mean 90? | Fix: --arch 90
            CUDA | hopper               | 90 (Hopper: H100, H200, GH200) | Did you mean 90? | Fix: --arch 90
            CUDA | Hopper               | Did you mean 90? | "Hopper"             | Fix: --arch 90
            CUDA | ampere               | 80 (Ampere: A100, A30) | 86 (Ampere: RTX 30xx | Did you mean 80, 86 or 87?
            CUDA | h100                 | Did you mean 90? | H100                  | Fix: --arch 90
            CUDA | NVIDIA-H200          | Did you mean 90? | H200                  | Fix: --arch 90
            CUDA | a100                 | Did you mean 80? | A100                  | Fix: --arch 80
            CUDA | rtx4090              | Did you mean 89? | Ada Lovelace          | Fix: --arch 89
            CUDA | RTX-3080-Ti          | Did you mean 86? | RTX 30xx              | Fix: --arch 86
            CUDA | b200                 | Did you mean 100? | B200                 | Fix: --arch 100
            CUDA | t4                   | Did you mean 75? | Turing                | Fix: --arch 75
            CUDA | v100                 | Did you mean 70? | Volta                 | Fix: --arch 70
            CUDA | orin                 | Did you mean 87? | Jetson Orin           | Fix: --arch 87
            CUDA | blackwell            | 100 (Blackwell (DC) | 120 (Blackwell (consumer/workstation) | 121 (Blackwell (GB10)
            CUDA | mi300x               | it is an AMD GPU (gfx942 | --platform hip | Fix: --platform hip --arch gfx942
            CUDA | gfx942               | not a CUDA architecture | "gfx942" is not a known CUDA architecture | Fix: --platform hip --arch gfx942
            CUDA | 86a                  | compute capability 8.6 has none | 90a, 100a, 103a, 110a, 120a or 121a | Fix: --arch 86.
            CUDA | sm_86a               | compute capability 8.6 has none | 'a' targets exist | Fix: --arch 86-real
            CUDA | 80a                  | compute capability 8.0 has none | 'a' targets exist | Fix: --arch 80
            CUDA | 90f                  | compute capability 9.0 has none | 'f' targets exist from 10.0 on, for 100f, 103f, 110f, 120f or 121f | Fix: --arch 90 (or 90a)
            CUDA | 89f                  | compute capability 8.9 has none | from 10.0 on | Fix: --arch 89.
            CUDA | compute_90f          | compute capability 9.0 has none | from 10.0 on | Fix: --arch 90-virtual (or 90a-virtual)
            CUDA | 101a                 | compute capability 10.1 has none | renamed to sm_110 in CUDA 13.0: 110a | Fix: --arch 101
            CUDA | 101f                 | compute capability 10.1 has none | renamed to sm_110 in CUDA 13.0: 110f | Fix: --arch 101
            CUDA | 35                   | compute capability 3.5 was removed in CUDA 12.0 | 5.0 is the oldest | Accepted:
            CUDA | sm_37                | compute capability 3.7 was removed in CUDA 12.0 | "sm_37" | Accepted:
            CUDA | 30                   | removed in CUDA 11.0 | "30"            | Accepted:
            CUDA | 2.0                  | removed in CUDA 9.0 | "2.0"            | Accepted:
            CUDA | 8.6+PTX              | PyTorch's TORCH_CUDA_ARCH_LIST spelling | Did you mean 86? | Fix: --arch 86
            CUDA | 9.0a+PTX             | PyTorch         | Did you mean 90a?       | Fix: --arch 90a
            CUDA | sm_90-real           | Did you mean sm_90 or 90-real? | "sm_90-real" | Fix: --arch sm_90
            CUDA | compute_90-virtual   | Did you mean compute_90 or 90-virtual? | Accepted: | Fix: --arch compute_90
            CUDA | 9.0-real             | Did you mean 90-real? | "9.0-real"        | Fix: --arch 90-real
            CUDA | 90-ptx               | Did you mean          | "90-ptx"          | Accepted:
            CUDA | all_major            | Did you mean all-major? | "all_major"     | Fix: --arch all-major
            CUDA | allmajor             | Did you mean all-major? | Accepted:       | Fix: --arch all-major
            CUDA | all-real             | Did you mean all      | Accepted:         | "all-real"
            CUDA | all,90               | "all" stands for a whole set of architectures | cannot be combined | CMake refuses all;90
            CUDA | 90;all-major         | "all-major" stands for a whole set | cannot be combined | "90,all-major"
            CUDA | all,all-major        | cannot be combined | "all,all-major" | whole set
            CUDA | banana               | "banana" is not a known CUDA architecture | Accepted: a known compute capability (50 52 53 60 61 62 70 72 75 80 86 87 88 89 90 100 101 103 110 120 121 | Fix: --arch 90
            HIP  | banana               | "banana" is not a known HIP architecture | Accepted: a known AMD processor (gfx900 gfx902 | gfx9-generic gfx9-4-generic
            """)
    void explainsWhatIsWrongAndHowToFixIt(Platform platform, String text, String fragment1, String fragment2,
                                         String fragment3) {
        assertThat(error(platform, text)).contains(fragment1, fragment2, fragment3);
    }

    @ParameterizedTest(name = "[{index}] {0} {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            CUDA | ""
            CUDA | ",;"
            CUDA | " ;, \t "
            HIP  | ""
            HIP  | ";;;"
            """)
    void refusesAnEmptyList(Platform platform, String text) {
        assertThat(error(platform, text)).contains("is empty", "name at least one", "--arch");
    }

    static Stream<Arguments> nativeAlone() {
        return onEveryPlatform(Arguments.of("native"), Arguments.of("NATIVE"), Arguments.of(" Native ;"));
    }

    @ParameterizedTest(name = "[{index}] {0} \"{1}\"")
    @MethodSource("nativeAlone")
    void refusesNativeBecauseDetectionResolvesIt(Platform platform, String text) {
        assertThat(error(platform, text)).contains("\"native\"", "detection", "--arch native alone");
    }

    @ParameterizedTest(name = "[{index}] {0} {1}")
    @CsvSource(delimiter = '|', textBlock = """
            HIP  | gfx942,native
            CUDA | 90 native
            """)
    void refusesNativeAmongOtherArchitectures(Platform platform, String text) {
        assertThat(error(platform, text)).contains("\"native\"", "cannot be combined with other architectures");
    }

    @ParameterizedTest(name = "[{index}] {0} {1}")
    @CsvSource(delimiter = '|', textBlock = """
            HIP  | gfx942a
            HIP  | gfx9420
            HIP  | gfx94
            HIP  | rm
            HIP  | mi300x
            HIP  | x
            HIP  | gfx1250
            HIP  | gfx9-5-generic
            CUDA | sm90
            CUDA | sm_900
            CUDA | hopper
            CUDA | h100
            CUDA | x
            CUDA | 95
            CUDA | all-minor
            CUDA | sm_90b
            """)
    void unknownNamesAlwaysSayWhatIsAcceptedAndTheFix(Platform platform, String text) {
        assertThat(error(platform, text)).contains(UntrustedText.quote(text), "Accepted:", "Fix: --arch ");
    }

    @Test
    void offersAtMostThreeSuggestions() {
        assertThat(error(Platform.CUDA, "blackwell")).contains("Did you mean 100, 101 or 103?");
        assertThat(error(Platform.HIP, "rdna2")).contains("Did you mean gfx1030, gfx1031 or gfx1035?");
    }

    // ---------------------------------------------------------------- hostile values

    static Stream<Arguments> hostile() {
        return Stream.of(
                Arguments.of("../x", "starts with \".\""),
                Arguments.of("/tmp/pwn", "starts with \"/\""),
                Arguments.of("gfx942/../../etc", "contains \"/\""),
                Arguments.of("gfx942;rm -rf /", "\"-rf\" does not look like an architecture"),
                Arguments.of("-rf", "starts with \"-\""),
                Arguments.of("/", "starts with \"/\""),
                Arguments.of("--arch", "starts with \"-\""),
                Arguments.of("-DCMAKE_CXX_COMPILER=evil", "starts with \"-\""),
                Arguments.of("gfx942=1", "contains \"=\""),
                Arguments.of("$(reboot)", "starts with \"$\""),
                Arguments.of("gfx942$(id)", "contains \"$\""),
                Arguments.of("gfx942`id`", "contains \"`\""),
                Arguments.of("gfx942|tee", "contains \"|\""),
                Arguments.of("gfx942&&x", "contains \"&\""),
                Arguments.of("gfx942>out", "contains \">\""),
                Arguments.of("gfx942'", "contains \"'\""),
                Arguments.of("gfx942\"", "contains \"\\\"\""),
                Arguments.of("gfx942\\x", "contains \"\\\\\""),
                Arguments.of("gfx942*", "contains \"*\""),
                Arguments.of("${HOME}", "starts with \"$\""),
                Arguments.of("%PATH%", "starts with \"%\""),
                Arguments.of("~root", "starts with \"~\""),
                Arguments.of("x".repeat(10 * 1024), "10240 characters long, over the limit of 4096"),
                Arguments.of("gfx942,".repeat(600), "4200 characters long"),
                Arguments.of("a".repeat(65), "65 characters long; no architecture name is longer than 64"),
                Arguments.of("gfx942\u0000", "control character U+0000 NULL"),
                Arguments.of("\u0000", "U+0000"),
                Arguments.of("gfx942\u001b[31m", "control character U+001B"),
                Arguments.of("gfx942\u007f", "control character U+007F"),
                Arguments.of("gfx942\u000b", "control character U+000B"),
                Arguments.of("gfx942\f", "control character U+000C"),
                Arguments.of("gfx942\u0085", "control character U+0085"),
                Arguments.of("gf\u0445942", "\"gf\\u0445942\" contains the non-ASCII character U+0445 CYRILLIC SMALL LETTER HA"),
                Arguments.of("\u0261fx942", "U+0261 LATIN SMALL LETTER SCRIPT G"),
                Arguments.of("gfx\uff19\uff14\uff12", "FULLWIDTH DIGIT NINE"),
                Arguments.of("\uff19\uff10", "\"\\uff19\\uff10\""),
                Arguments.of("9\uff10", "U+FF10 FULLWIDTH DIGIT ZERO"),
                Arguments.of("\u0669\u0660", "ARABIC-INDIC DIGIT NINE"),
                Arguments.of("\u096f\u0966", "DEVANAGARI DIGIT NINE"),
                Arguments.of("gfx942\u00a0gfx90a", "U+00A0 NO-BREAK SPACE"),
                Arguments.of("90\u2003 80", "U+2003 EM SPACE"),
                Arguments.of("gfx942\u200b", "U+200B ZERO WIDTH SPACE"),
                Arguments.of("gfx942\u2028", "U+2028 LINE SEPARATOR"),
                Arguments.of("gfx942\ufeff", "U+FEFF"),
                Arguments.of("gfx942\u202e", "U+202E RIGHT-TO-LEFT OVERRIDE"),
                Arguments.of("gfx942\ud83d\ude00", "U+1F600"),
                Arguments.of("gfx942\ud800", "U+D800"),
                Arguments.of("NAT\u0130VE", "U+0130 LATIN CAPITAL LETTER I WITH DOT ABOVE"),
                Arguments.of("gfx942\u212a", "U+212A KELVIN SIGN"));
    }

    static Stream<Arguments> hostileOnEveryPlatform() {
        return onEveryPlatform(hostile().toArray(Arguments[]::new));
    }

    @ParameterizedTest(name = "[{index}] {0}: {2}")
    @MethodSource("hostileOnEveryPlatform")
    void refusesHostileValuesBeforeAnythingElse(Platform platform, String text, String fragment) {
        String message = error(platform, text);
        assertThat(message).contains(fragment);
        assertThat(message).doesNotContain("Did you mean", "Accepted:");
    }

    static Stream<Arguments> injectedWords() {
        return Stream.concat(
                onEveryPlatform(Arguments.of("rm", "\"rm\" is not a known"),
                        Arguments.of("-rf", "\"-rf\" does not look like an architecture"),
                        Arguments.of("/", "\"/\" does not look like an architecture")),
                Stream.of(Arguments.of(Platform.HIP, "gfx942;rm", "\"rm\" is not a known HIP architecture")));
    }

    @ParameterizedTest(name = "[{index}] {0} {1}")
    @MethodSource("injectedWords")
    void refusesEachWordOfAnInjectedCommand(Platform platform, String text, String fragment) {
        assertThat(error(platform, text)).contains(fragment);
    }

    @Test
    void checksTheShapeOfEveryEntryBeforeParsingAny() {
        // 'rm' alone is an unknown name, but the hostile '-rf' later in the list is what is reported
        assertThat(error(Platform.HIP, "rm -rf /")).contains("\"-rf\"");
        assertThat(error(Platform.CUDA, "banana,90,/etc/passwd")).contains("\"/etc/passwd\"").doesNotContain("banana");
        assertThat(error(Platform.CUDA, "banana,gf\u0445942")).contains("U+0445").doesNotContain("Accepted");
    }

    @Test
    void quotesHostileValuesSafelyAndBriefly() {
        String message = error(Platform.HIP, "x".repeat(10 * 1024));
        assertThat(message).contains("\"" + "x".repeat(80) + "\"... (10240 characters in all)")
                .doesNotContain("x".repeat(81));
        assertThat(message.length()).isLessThan(400);
        assertThat(error(Platform.HIP, "gfx942\u0000rm")).contains("\"gfx942\\u0000rm\"").doesNotContain("\u0000");
        assertThat(error(Platform.HIP, "a,b\u001b]0;title\u0007")).contains("\\u001b").doesNotContain("\u001b");
        String longEntry = "gfx" + "9".repeat(100);
        assertThat(error(Platform.HIP, longEntry)).contains("103 characters long", "(103 characters in all)");
    }

    @Test
    void nonBreakingSpaceIsAnErrorNotASeparator() {
        assertThat(error(Platform.HIP, "gfx942\u00a0gfx90a"))
                .contains("\"gfx942\\u00a0gfx90a\"", "separate entries with ',', ';' or a plain ASCII space");
        assertThat(error(Platform.CUDA, "\u00a090")).contains("NO-BREAK SPACE");
    }

    @Test
    void integerParsingWouldReadFullwidthDigitsAsANumber() {
        // Integer.parseInt("\uff19\uff10") is 90: only the ASCII check stands between this and a silent "90"
        assertThat(Integer.parseInt("\uff19\uff10")).isEqualTo(90);
    }

    static Stream<Named<String>> nonAsciiDigits() {
        return Stream.of(Named.of("fullwidth 90", "\uff19\uff10"), Named.of("Arabic-Indic 90", "\u0669\u0660"),
                Named.of("Devanagari 90", "\u096f\u0966"), Named.of("sm_ fullwidth 90", "sm_\uff19\uff10"),
                Named.of("fullwidth 9.0", "\uff19.\uff10"), Named.of("compute_9 fullwidth 0", "compute_9\uff10"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("nonAsciiDigits")
    void fullwidthAndOtherNonAsciiDigitsNeverBecomeNumbers(String digits) {
        assertThatThrownBy(() -> ArchList.parse(Platform.CUDA, digits)).isInstanceOf(ArchSyntaxException.class)
                .hasMessageContaining("non-ASCII character");
        assertThatThrownBy(() -> CudaArch.parse(digits)).isInstanceOf(ArchSyntaxException.class)
                .hasMessageContaining("non-ASCII character");
    }

    @Test
    void refusesNull() {
        assertThatThrownBy(() -> ArchList.parse(Platform.HIP, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> ArchList.parse(null, "90")).isInstanceOf(NullPointerException.class);
    }

    // ---------------------------------------------------------------- isNative

    @ParameterizedTest
    @ValueSource(strings = {"native", "NATIVE", "Native", " native ", ",native;", "\tnative\r\n", ";; native ,,"})
    void recognisesNative(String text) {
        assertThat(ArchList.isNative(text)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "nativ", "natives", "native,native", "native gfx942", "90;native",
            "native\u00a0", "\u00a0native", "\u2003native", "native\u000b", "NAT\u0130VE", "nat\u0131ve",
            "n\u0430tive", "'native'", "native:xnack-", "-native", "na tive"})
    void recognisesOnlyExactlyNative(String text) {
        assertThat(ArchList.isNative(text)).isFalse();
    }

    @ParameterizedTest
    @NullSource
    void nullIsNotNative(String text) {
        assertThat(ArchList.isNative(text)).isFalse();
    }

    @Test
    void anOverLongListIsNotNative() {
        assertThat(ArchList.isNative(" ".repeat(5000) + "native")).isFalse();
    }

    // ---------------------------------------------------------------- guessPlatform

    @ParameterizedTest(name = "[{index}] {0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', nullValues = "NULL", textBlock = """
            gfx942                | HIP
            GFX90A:xnack-         | HIP
            gfx11-generic,gfx942  | HIP
            gfx942a               | HIP
            mi300x                | HIP
            rdna3                 | HIP
            sm_90,80              | CUDA
            sm90                  | CUDA
            compute_90            | CUDA
            90                    | CUDA
            90a-real              | CUDA
            100f                  | CUDA
            9.0                   | CUDA
            8.6+PTX               | CUDA
            all                   | CUDA
            ALL-MAJOR             | CUDA
            ",; 90 gfx942"        | CUDA
            h100                  | CUDA
            hopper                | CUDA
            banana                | NULL
            native                | NULL
            ""                    | NULL
            " ,; "                | NULL
            ../x                  | NULL
            """)
    void guessesThePlatformOfAnExplicitList(String text, Platform expected) {
        assertThat(ArchList.guessPlatform(text)).isEqualTo(expected);
    }

    @Test
    void guessesNothingForHostileText() {
        assertThat(ArchList.guessPlatform(null)).isNull();
        assertThat(ArchList.guessPlatform("gf\u0445942")).isNull();
        assertThat(ArchList.guessPlatform("\uff19\uff10")).isNull();
        assertThat(ArchList.guessPlatform("9\u0000")).isNull();
        assertThat(ArchList.guessPlatform("gfx942".repeat(1000))).isNull();
    }

    // ---------------------------------------------------------------- fromDevice, cmakeNames

    @Test
    void takesADevicesArchitectureWithoutItsTargetFeatures() {
        GpuArch mi300x = ArchList.fromDevice(
                new GpuDevice(Platform.HIP, 0, null, "gfx942", "MI300X", "gfx942:sramecc+:xnack-"));
        assertThat(mi300x).isEqualTo(new HipArch("gfx942"));
        assertThat(mi300x.cmakeName()).isEqualTo("gfx942");
        assertThat(((HipArch) mi300x).features()).isEmpty();
        assertThat(ArchList.fromDevice(new GpuDevice(Platform.HIP, 1, null, "gfx90a", null, "gfx90a:xnack-"))
                .cmakeName()).isEqualTo("gfx90a");
        assertThat(ArchList.fromDevice(new GpuDevice(Platform.HIP, 0, null, "gfx1100", null, "gfx1100"))
                .cmakeName()).isEqualTo("gfx1100");
        assertThat(ArchList.fromDevice(new GpuDevice(Platform.HIP, 0, null, "gfx1151", null)).cmakeName())
                .isEqualTo("gfx1151");
    }

    @Test
    void takesACudaDevicesCapabilityInCMakesPlainForm() {
        GpuArch h200 = ArchList.fromDevice(new GpuDevice(Platform.CUDA, 0, "GPU-1", "90", "NVIDIA H200"));
        assertThat(h200).isEqualTo(new CudaSm(90, CudaSm.Variant.NONE, CudaSm.Code.REAL_AND_VIRTUAL));
        assertThat(h200.cmakeName()).isEqualTo("90");
        assertThat(ArchList.fromDevice(new GpuDevice(Platform.CUDA, 0, null, "121", null)).cmakeName()).isEqualTo("121");
        assertThat(ArchList.fromDevice(new GpuDevice(Platform.CUDA, 0, null, "70", null)).cmakeName()).isEqualTo("70");
    }

    @Test
    void trustsTheHardwareForADeviceNewerThanTheTable() {
        GpuArch amd = ArchList.fromDevice(new GpuDevice(Platform.HIP, 0, null, "gfx1250", null, "gfx1250:xnack-"));
        assertThat(amd.cmakeName()).isEqualTo("gfx1250");
        assertThat(amd.isKnown()).isFalse();
        GpuArch nvidia = ArchList.fromDevice(new GpuDevice(Platform.CUDA, 0, null, "130", null));
        assertThat(nvidia.cmakeName()).isEqualTo("130");
        assertThat(nvidia.isKnown()).isFalse();
        assertThat(ArchList.fromDevice(new GpuDevice(Platform.HIP, 0, null, "gfx942", null)).isKnown()).isTrue();
    }

    @Test
    void refusesADeviceThatReportsNoSingleArchitecture() {
        assertThatThrownBy(() -> ArchList.fromDevice(new GpuDevice(Platform.HIP, 0, null, "gfx9-4-generic", null)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("generic");
        assertThatThrownBy(() -> ArchList.fromDevice(new GpuDevice(Platform.HIP, 0, null, "gfxabcdef", null)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ArchList.fromDevice(new GpuDevice(Platform.CUDA, 0, null, "9", null)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ArchList.fromDevice(new GpuDevice(Platform.CUDA, 0, null, "99999999999999", null)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ArchList.fromDevice(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void namesArchitecturesTheCMakeWay() throws Exception {
        assertThat(ArchList.cmakeNames(List.of(new HipArch("gfx90a", List.of("xnack-")), new HipArch("gfx942"))))
                .containsExactly("gfx90a:xnack-", "gfx942");
        assertThat(ArchList.cmakeNames(List.of(CudaAll.ALL_MAJOR))).containsExactly("all-major");
        assertThat(ArchList.cmakeNames(List.of())).isEmpty();
        assertThat(ArchList.parseToCmake(Platform.CUDA, "sm_90 compute_90 9.0"))
                .containsExactly("90-real", "90-virtual", "90");
    }

    @ParameterizedTest(name = "[{index}] {0} {1}")
    @CsvSource(delimiter = '|', textBlock = """
            CUDA | 90
            CUDA | 90a-real
            CUDA | 100f-virtual
            CUDA | all
            CUDA | all-major
            CUDA | sm_121a
            CUDA | 12.0f
            HIP  | gfx942:xnack-:sramecc+
            HIP  | GFX9-4-GENERIC
            HIP  | gfx1100 gfx1101
            """)
    void canonicalNamesParseBackToTheSameValue(Platform platform, String text) throws Exception {
        List<GpuArch> once = ArchList.parse(platform, text);
        assertThat(ArchList.parse(platform, String.join(";", ArchList.cmakeNames(once)))).isEqualTo(once);
    }

    static Stream<Named<String>> rawInput() {
        return Stream.of(Named.of("NUL", "gfx942\u0000"), Named.of("Cyrillic ha", "gf\u0445942"),
                Named.of("ANSI clear screen", "\u001b[2J"), Named.of("emoji", "gfx942\ud83d\ude00"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("rawInput")
    void messagesNeverRepeatRawInput(String text) {
        assertThat(error(Platform.HIP, text)).matches("[\\x20-\\x7e]+");
    }
}
