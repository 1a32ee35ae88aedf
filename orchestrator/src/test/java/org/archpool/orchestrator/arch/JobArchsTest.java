package org.archpool.orchestrator.arch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.archpool.protocol.Platform;
import org.archpool.protocol.UntrustedText;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JobArchsTest {

    /**
     * {@code nvcc --list-gpu-code} of CUDA 13.0 (V13.0.88), in the order it prints (110 before 103), as the caller
     * passes it: {@link ToolchainCheck} strips {@code sm_}. Captured with the installed toolkit:
     * sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_100 sm_110 sm_103 sm_120 sm_121; its
     * {@code nvcc -arch=all-major --dryrun} compiles compute_75 80 90 100 110 120.
     */
    static final List<String> NVCC_13_0 =
            List.of("75", "80", "86", "87", "88", "89", "90", "100", "110", "103", "120", "121");

    /** CUDA 12.8's real architectures, per CMake's CMakeCUDAArchitecturesAll.cmake. */
    static final List<String> NVCC_12_8 =
            List.of("50", "52", "53", "60", "61", "62", "70", "72", "75", "80", "86", "87", "89", "90", "100", "101",
                    "120");

    private static List<String> list(String text, String separator) {
        return text == null || text.isBlank() ? List.of() : Arrays.stream(text.split(separator)).map(String::strip)
                .toList();
    }

    private static JobArchs.Intersection intersect(Platform platform, String job, String target) throws Exception {
        return JobArchs.parse(platform, list(job, ",")).intersect(list(target, ";"), NVCC_13_0);
    }

    /** The message of the refusal of {@code entries}, checked to be one printable, bounded paragraph. */
    static String error(Platform platform, String... entries) {
        ArchSyntaxException e = catchThrowableOfType(ArchSyntaxException.class,
                () -> JobArchs.parse(platform, Arrays.asList(entries)));
        assertThat(e).as("parse(%s, %s) must fail", platform, Arrays.toString(entries)).isNotNull();
        assertThat(e.getMessage()).as("one paragraph of printable ASCII").matches("[\\x20-\\x7e]+");
        assertThat(e.getMessage().length()).as("bounded length").isLessThan(1600);
        return e.getMessage();
    }

    // ---------------------------------------------------------------- the table of docs/arch-resolution.md

    @ParameterizedTest(name = "[{index}] {0} job {1}, target {2} -> {3}")
    @CsvSource(delimiter = '|', textBlock = """
            CUDA | 90                    | 80;90                          | 90
            CUDA | 90                    | 90a                            | 90a
            CUDA | 90                    | 80-real;90-real;90a-virtual    | 90-real;90a-virtual
            CUDA | 90a                   | 80;90                          | skipped
            CUDA | 90a                   | 90a-real                       | 90a-real
            CUDA | 100f                  | 100a                           | 100a
            CUDA | 100f                  | 100                            | skipped
            CUDA | 100a                  | 100f                           | skipped
            CUDA | >=80                  | 75;80;90a;120                  | 80;90a;120
            CUDA | >90                   | 90a;100                        | 100
            CUDA | <100                  | 90;100;120                     | 90
            CUDA | <=90, 120f            | 80;90a;100;120a                | 80;90a;120a
            CUDA | 80, 90                | 90-real;80-real                | 90-real;80-real
            CUDA | 90a, >=100            | all-major                      | 100-real;110-real;120
            CUDA | >=90                  | all                            | 90-real;100-real;103-real;110-real;120-real;121
            CUDA | <80                   | all-major                      | 75-real
            HIP  | gfx90a                | gfx90a:xnack-;gfx942           | gfx90a:xnack-
            HIP  | gfx90a:xnack+         | gfx90a                         | skipped
            HIP  | gfx90a:xnack+         | gfx90a:xnack+;gfx942:xnack+    | gfx90a:xnack+
            HIP  | gfx908:sramecc+:xnack- | gfx908:xnack-                 | skipped
            HIP  | GFX942                | gfx942                         | gfx942
            HIP  | gfx942                | gfx9-4-generic                 | skipped
            """)
    void theDocumentedExamples(Platform platform, String job, String target, String expected) throws Exception {
        JobArchs.Intersection r = intersect(platform, job, target);
        if (expected.equals("skipped")) {
            assertThat(r.archs()).isEmpty();
            assertThat(r.empty()).isTrue();
            assertThat(r.reason()).startsWith("it supports ").contains(", the run builds ");
        } else {
            assertThat(r.archs()).containsExactlyElementsOf(list(expected, ";"));
            assertThat(r.empty()).isFalse();
            assertThat(r.reason()).isNull();
        }
    }

    // ---------------------------------------------------------------- feature levels, one pair at a time

    @ParameterizedTest(name = "job {0} vs target {1}: {2}")
    @CsvSource(delimiter = '|', textBlock = """
            90    | 90          | true
            90    | 90a         | true
            90    | 90-real     | true
            90    | 90-virtual  | true
            90    | 90a-real    | true
            90    | 90a-virtual | true
            90a   | 90a         | true
            90a   | 90a-real    | true
            90a   | 90          | false
            90a   | 90-real     | false
            100   | 100f        | true
            100   | 100a        | true
            100f  | 100f        | true
            100f  | 100a        | true
            100f  | 100f-real   | true
            100f  | 100         | false
            100a  | 100a        | true
            100a  | 100f        | false
            100a  | 100         | false
            120f  | 121f        | false
            100f  | 103f        | false
            90    | 100         | false
            9.0   | 90          | true
            >=80  | 90a-real    | true
            >=90  | 90a         | true
            >90   | 90a         | false
            >90   | 100f        | true
            <=90  | 90a         | true
            <90   | 90a         | false
            <90   | 89          | true
            >=100 | 120         | true
            >=100 | 90          | false
            <100  | 120a        | false
            <=121 | 121f-virtual | true
            >=9.0 | 100         | true
            """)
    void cudaMatching(String job, String target, boolean matches) throws Exception {
        JobArchs.Intersection r = JobArchs.parse(Platform.CUDA, List.of(job)).intersect(List.of(target), List.of());
        assertThat(r.archs()).isEqualTo(matches ? List.of(target) : List.of());
    }

    @ParameterizedTest(name = "job {0} vs target {1}: {2}")
    @CsvSource(delimiter = '|', textBlock = """
            gfx90a                  | gfx90a                  | true
            gfx90a                  | gfx90a:xnack-           | true
            gfx90a                  | gfx90a:xnack+           | true
            gfx90a                  | gfx90a:sramecc+:xnack-  | true
            gfx90a:xnack-           | gfx90a:xnack-           | true
            gfx90a:xnack-           | gfx90a:sramecc-:xnack-  | true
            gfx90a:xnack-           | gfx90a:xnack+           | false
            gfx90a:xnack-           | gfx90a                  | false
            gfx90a:xnack+           | gfx90a                  | false
            gfx90a:xnack+           | gfx90a:sramecc+         | false
            gfx908:sramecc+:xnack-  | gfx908:sramecc+:xnack-  | true
            gfx908:xnack-:sramecc+  | gfx908:sramecc+:xnack-  | true
            gfx908:sramecc+:xnack-  | gfx908:xnack-           | false
            gfx908:sramecc+:xnack-  | gfx908:sramecc-:xnack-  | false
            gfx90a                  | gfx942                  | false
            gfx942                  | gfx9-4-generic          | false
            gfx9-4-generic          | gfx9-4-generic          | true
            GFX90A:XNACK-           | gfx90a:xnack-           | true
            gfx1100                 | gfx1100                 | true
            """)
    void hipMatching(String job, String target, boolean matches) throws Exception {
        JobArchs.Intersection r = JobArchs.parse(Platform.HIP, List.of(job)).intersect(List.of(target), List.of());
        assertThat(r.archs()).isEqualTo(matches ? List.of(target) : List.of());
    }

    // ---------------------------------------------------------------- order, spelling, reasons

    @Test
    void keepsTheTargetsOrderAndSpellingAndTheEntriesAsWritten() throws Exception {
        JobArchs job = JobArchs.parse(Platform.CUDA, List.of("9.0", ">=100", "9.0", "80"));
        assertThat(job.entries()).containsExactly("9.0", ">=100", "9.0", "80");
        assertThat(job.platform()).isEqualTo(Platform.CUDA);
        assertThat(job.intersect(List.of("120a-real", "75", "90a-virtual", "80-real", "100f"), List.of()).archs())
                .containsExactly("120a-real", "90a-virtual", "80-real", "100f");

        JobArchs hip = JobArchs.parse(Platform.HIP, List.of("GFX942", "gfx90a"));
        assertThat(hip.entries()).containsExactly("GFX942", "gfx90a");
        assertThat(hip.intersect(List.of("gfx90a:xnack-", "gfx1100", "gfx942:sramecc+:xnack-"), List.of()).archs())
                .containsExactly("gfx90a:xnack-", "gfx942:sramecc+:xnack-");
    }

    @Test
    void aSkippedJobSaysWhatItSupportsAndWhatTheRunBuilds() throws Exception {
        assertThat(intersect(Platform.CUDA, "90a", "80;90").reason()).isEqualTo("it supports 90a, the run builds 80;90");
        assertThat(intersect(Platform.CUDA, "90a, >=120", "80;90").reason())
                .isEqualTo("it supports 90a or >=120, the run builds 80;90");
        assertThat(intersect(Platform.HIP, "gfx90a:xnack+", "gfx90a;gfx942").reason())
                .isEqualTo("it supports gfx90a:xnack+, the run builds gfx90a;gfx942");
        assertThat(intersect(Platform.CUDA, "90a", "all-major").reason()).isEqualTo("it supports 90a, the run builds"
                + " all-major (75-real;80-real;90-real;100-real;110-real;120 with this nvcc)");
    }

    @Test
    void aDetectedCapabilityNewerThanTheTableIsMatchedByNumber() throws Exception {
        // ArchList.fromDevice spells a capability the table does not know as plain digits
        assertThat(JobArchs.parse(Platform.CUDA, List.of(">=100")).intersect(List.of("90", "130"), List.of()).archs())
                .containsExactly("130");
        assertThat(JobArchs.parse(Platform.CUDA, List.of("90")).intersect(List.of("130"), List.of()).empty()).isTrue();
        assertThat(JobArchs.parse(Platform.HIP, List.of("gfx942")).intersect(List.of("gfx1299", "gfx942"), List.of())
                .archs()).containsExactly("gfx942");
    }

    // ---------------------------------------------------------------- all / all-major

    @Test
    void expandsAllAndAllMajorAsCmakeAndNvccDo() {
        assertThat(ArchList.cmakeNames(JobArchs.expand(CudaAll.ALL, NVCC_13_0))).containsExactly("75-real", "80-real",
                "86-real", "87-real", "88-real", "89-real", "90-real", "100-real", "103-real", "110-real", "120-real",
                "121");
        assertThat(ArchList.cmakeNames(JobArchs.expand(CudaAll.ALL_MAJOR, NVCC_13_0)))
                .containsExactly("75-real", "80-real", "90-real", "100-real", "110-real", "120");
        // CMake's CMAKE_CUDA_ARCHITECTURES_ALL_MAJOR for CUDA 12.8: 50 60 70 80 90 100 120
        assertThat(ArchList.cmakeNames(JobArchs.expand(CudaAll.ALL_MAJOR, NVCC_12_8)))
                .containsExactly("50-real", "60-real", "70-real", "80-real", "90-real", "100-real", "120");
        // as nvcc prints it, in any order, variants (which all never builds) left out
        List<String> printed = new ArrayList<>(NVCC_13_0.stream().map(s -> "sm_" + s).toList());
        printed.add("sm_90a");
        Collections.reverse(printed);
        assertThat(JobArchs.expand(CudaAll.ALL_MAJOR, printed)).isEqualTo(
                JobArchs.expand(CudaAll.ALL_MAJOR, NVCC_13_0));
    }

    @Test
    void intersectsAnExpandedTarget() throws Exception {
        JobArchs job = JobArchs.parse(Platform.CUDA, List.of(">=80", "<100"));
        assertThat(job.intersect(List.of("all"), NVCC_13_0).archs()).containsExactly("75-real", "80-real", "86-real",
                "87-real", "88-real", "89-real", "90-real", "100-real", "103-real", "110-real", "120-real", "121");
        JobArchs mid = JobArchs.parse(Platform.CUDA, List.of("86", "90", "121"));
        assertThat(mid.intersect(List.of("all"), NVCC_13_0).archs()).containsExactly("86-real", "90-real", "121");
        assertThat(mid.intersect(List.of("ALL-MAJOR"), NVCC_13_0).archs()).containsExactly("90-real");
        assertThat(mid.intersect(List.of("all-major"), NVCC_12_8).archs()).containsExactly("90-real");
        assertThat(JobArchs.parse(Platform.CUDA, List.of("90a")).intersect(List.of("all"), NVCC_13_0).empty())
                .isTrue();
        assertThat(JobArchs.parse(Platform.CUDA, List.of(">=100")).intersect(List.of("all-major"), NVCC_12_8).archs())
                .containsExactly("100-real", "120");
    }

    @Test
    void allNeedsWhatTheCompilerBuilds() throws Exception {
        JobArchs job = JobArchs.parse(Platform.CUDA, List.of("90"));
        assertThatThrownBy(() -> job.intersect(List.of("all"), List.of())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("--list-gpu-code");
        assertThatThrownBy(() -> job.intersect(List.of("all-major"), List.of("sm_90a")))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> job.intersect(List.of("all"), List.of("ninety")))
                .isInstanceOf(IllegalArgumentException.class);
        // a concrete target never needs the list
        assertThat(job.intersect(List.of("90"), List.of()).archs()).containsExactly("90");
    }

    @Test
    void refusesATargetThatIsNoArchitectureOfThePlatform() throws Exception {
        JobArchs cuda = JobArchs.parse(Platform.CUDA, List.of("90"));
        assertThatThrownBy(() -> cuda.intersect(List.of(), NVCC_13_0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cuda.intersect(List.of("gfx942"), NVCC_13_0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cuda.intersect(List.of("all", "90"), NVCC_13_0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("stands alone");
        JobArchs hip = JobArchs.parse(Platform.HIP, List.of("gfx942"));
        assertThatThrownBy(() -> hip.intersect(List.of("90"), NVCC_13_0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anIntersectionHasAReasonExactlyWhenItIsEmpty() {
        assertThatThrownBy(() -> new JobArchs.Intersection(List.of(), null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new JobArchs.Intersection(List.of("90"), "why"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    // ---------------------------------------------------------------- refusals

    @Test
    void refusesAnEmptyList() {
        assertThat(error(Platform.CUDA)).isEqualTo("an empty archs list would skip the job everywhere; leave archs"
                + " out to build for every architecture of the run, or list the architectures the job supports, e.g."
                + " [\"90a\"] or [\">=80\"].");
        assertThat(error(Platform.HIP)).startsWith("an empty archs list would skip the job everywhere; leave archs out"
                + " to build for every architecture of the run").contains("gfx942");
    }

    @ParameterizedTest(name = "[{index}] {0}: {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '\'', textBlock = """
            >=90a     | a range names compute capabilities; list a feature architecture such as 90a on its own
            >=90a     | Fix: ">=90" for the capabilities, or "90a" for the arch-specific target alone
            <100f     | Fix: "<100" for the capabilities, or "100f" for the family-specific target alone
            >=80-real | -real/-virtual (or sm_/compute_) say how to build
            >sm_80    | Fix: ">80"
            >=85      | is not a range archpool understands: after >= comes a known compute capability
            >=85      | Fix: ">=86".
            >=all     | Fix: ">=80".
            >=all     | is not a range archpool understands
            >=        | is not a range archpool understands
            >==80     | is not a range archpool understands
            =>80      | a range is >=N, >N, <=N or <N with N a compute capability
            ==90      | a range is >=N, >N, <=N or <N
            !=90      | a range is >=N, >N, <=N or <N
            >=gfx90a  | AMD processors have no order
            90-real   | says how to build (real code only), which is the run's business
            90-real   | Fix: "90".
            90a-virtual | says how to build (PTX only)
            sm_90a    | (that is 90a-real) says how to build
            compute_90 | (that is 90-virtual)
            all       | is not an architecture a job can support
            All-Major | leaving archs out already means every architecture of the run
            native    | native is resolved for the whole run
            '>= 80'   | a range is written without one. Fix: ">=80".
            ' 90'     | has spaces around it. Fix: "90".
            '80,90'   | give one architecture per entry. Fix: ["80", "90"].
            '80;90'   | give one architecture per entry
            95        | is not a known CUDA architecture
            90f       | has none
            sm90      | Did you mean sm_90
            gfx942    | AMD (HIP) architecture
            ../x      | does not look like an architecture
            """)
    void refusesBadCudaEntries(String entry, String message) {
        assertThat(error(Platform.CUDA, entry)).contains(message);
    }

    @ParameterizedTest(name = "[{index}] {0}: {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '\'', textBlock = """
            >=gfx90a       | ranges (>=, >, <=, <) name CUDA compute capabilities; AMD processors have no order
            <gfx942        | Fix: list each processor the job supports, e.g. ["gfx90a", "gfx942"].
            all            | is not an architecture a job can support
            native         | is not an architecture a job can support
            gfx90a:xnack   | without a sign
            gfx1100:xnack- | so it cannot pin xnack
            gfx9999        | is not a known
            90             | is not a known
            'gfx90a gfx942' | give one architecture per entry
            """)
    void refusesBadHipEntries(String entry, String message) {
        assertThat(error(Platform.HIP, entry)).contains(message);
    }

    @Test
    void namesTheBadEntryAmongGoodOnes() {
        assertThat(error(Platform.CUDA, "80", ">=90a", "100")).startsWith("\">=90a\"");
        assertThat(error(Platform.HIP, "gfx942", "gfx90a:xnack")).startsWith("\"gfx90a:xnack\"");
        assertThat(error(Platform.CUDA, "80", null)).contains("null");
        assertThat(error(Platform.CUDA, ">=\u0669\u0660")).doesNotContain("\u0669").contains("\\u0669");
    }

    @Test
    void quotesHostileEntriesSafely() {
        String message = error(Platform.CUDA, ">=80;rm -rf /");
        assertThat(message).startsWith(UntrustedText.quote(">=80;rm -rf /"));
        assertThat(error(Platform.HIP, "gfx90a\nxnack")).doesNotContain("\n");
    }
}
