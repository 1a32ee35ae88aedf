package org.archpool.orchestrator.toolchain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.archpool.orchestrator.manifest.JobScope;
import org.archpool.orchestrator.manifest.ManifestException;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;
import org.junit.jupiter.api.Test;

/** Which (job, target) pairs a run builds, for what, in which folder, and which it skips and why. */
class JobTargetsTest {

    private static final Target CUDA = new Target(Platform.CUDA, List.of("80", "90"));
    private static final Target HIP = new Target(Platform.HIP, List.of("gfx90a", "gfx942"));
    private static final List<String> NVCC_BUILDS = List.of("75", "80", "86", "89", "90", "100", "120");

    private static CmakeJob cmake(String id, String buildDir) {
        return new CmakeJob(id, "/src/" + id, buildDir, null, null, null, null, null, null, null, null, null);
    }

    private static CommandJob command(String id) {
        return new CommandJob(id, List.of("nvcc", "k.cu"), "/src", Map.of(), null, List.of(), null);
    }

    private static List<JobTargets.Assignment> assign(List<JobSpec> jobs, Map<String, JobScope> scopes,
                                                      Target... targets) throws ManifestException {
        return JobTargets.assign(jobs, id -> scopes.getOrDefault(id, JobScope.ANY), List.of(targets),
                p -> p == Platform.CUDA ? NVCC_BUILDS : List.of());
    }

    @Test
    void withOneTargetEveryJobKeepsItsIdAndFolderAndIsBuiltForTheWholeList() throws Exception {
        List<JobTargets.Assignment> plan = assign(List.of(cmake("a", "/p/build/a"), command("b")), Map.of(), CUDA);
        assertThat(plan).extracting(a -> a.unit().name()).containsExactly("a", "b");
        assertThat(plan).allMatch(a -> a.skipped() == null && a.unit().target().equals(CUDA));
        assertThat(((CmakeJob) plan.get(0).unit().job()).buildDir()).isEqualTo("/p/build/a");
        assertThat(plan.get(0).unit().logName()).isEqualTo("a");
    }

    @Test
    void withSeveralTargetsACmakeJobIsBuiltOncePerPlatformInAFolderOfThePlatforms() throws Exception {
        List<JobTargets.Assignment> plan = assign(List.of(cmake("a", "/p/build/a"), cmake("b", "/p/out")),
                Map.of("b", JobScope.of(Set.of(), null, false)), CUDA, HIP);
        assertThat(plan).extracting(a -> a.unit().name()).containsExactly("a[cuda]", "a[hip]", "b[cuda]", "b[hip]");
        assertThat(plan).extracting(a -> ((CmakeJob) a.unit().job()).buildDir())
                .containsExactly("/p/build/cuda/a", "/p/build/hip/a", "/p/out/cuda", "/p/out/hip");
        assertThat(plan).extracting(a -> a.unit().logName()).containsExactly("cuda/a", "hip/a", "cuda/b", "hip/b");
        assertThat(plan).extracting(a -> a.unit().job().id()).containsOnly("a", "b");
        assertThat(plan.get(1).unit().target()).isEqualTo(HIP);
    }

    @Test
    void aJobIsBuiltForTheArchitecturesItSupportsAndSkippedWhereThereAreNone() throws Exception {
        Map<String, JobScope> scopes = Map.of(
                "fp8", JobScope.of(Set.of(), List.of("90a"), true),
                "ampere-up", JobScope.of(Set.of(), List.of(">=80"), true),
                "hopper", JobScope.of(Set.of(), List.of("90", "gfx942"), true));
        List<JobTargets.Assignment> plan = assign(List.of(command("fp8"), command("ampere-up"), command("hopper")),
                scopes, CUDA);
        assertThat(plan.get(0).skipped()).contains("90a").contains("80;90");
        assertThat(plan.get(0).unit().target()).as("a skipped job names the run's target").isEqualTo(CUDA);
        assertThat(plan.get(1).skipped()).isNull();
        assertThat(plan.get(1).unit().target().archs()).containsExactly("80", "90");
        assertThat(plan.get(2).unit().target().archs()).containsExactly("90");
    }

    @Test
    void allStandsForTheArchitecturesTheCompilerBuildsBeforeTheIntersection() throws Exception {
        List<JobTargets.Assignment> plan = assign(List.of(command("k")),
                Map.of("k", JobScope.of(Set.of(), List.of(">=90"), true)), new Target(Platform.CUDA, List.of("all")));
        assertThat(plan.get(0).unit().target().archs()).containsExactly("90-real", "100-real", "120");
    }

    @Test
    void allThatTheCompilerWasNotAskedToExpandIsAUsageErrorForAJobThatListsItsArchs() {
        Target all = new Target(Platform.CUDA, List.of("all-major"));
        assertThatThrownBy(() -> JobTargets.assign(List.of(command("k")),
                id -> scope(List.of(">=90")), List.of(all), p -> List.of()))
                .isInstanceOf(ManifestException.class)
                .hasMessageContaining("job \"k\" lists the architectures it supports")
                .hasMessageContaining("--no-toolchain-check").hasMessageContaining("--arch 80;90");
    }

    private static JobScope scope(List<String> archs) {
        try {
            return JobScope.of(Set.of(), archs, true);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aJobLimitedToPlatformsIsPairedOnlyWithThoseAndOneForNoneOfTheRunsIsSkipped() throws Exception {
        Map<String, JobScope> scopes = Map.of(
                "hip-only", JobScope.of(Set.of(Platform.HIP), null, true),
                "cuda-cmd", JobScope.of(Set.of(Platform.CUDA), null, true));
        List<JobTargets.Assignment> plan = assign(List.of(cmake("hip-only", "/p/build/hip-only"), command("cuda-cmd")),
                scopes, CUDA, HIP);
        assertThat(plan).extracting(a -> a.unit().name()).containsExactly("hip-only[hip]", "cuda-cmd[cuda]");
        assertThat(plan).allMatch(a -> a.skipped() == null);

        List<JobTargets.Assignment> cudaRun = assign(List.of(cmake("hip-only", "/p/build/hip-only")), scopes, CUDA);
        assertThat(cudaRun).singleElement().satisfies(a -> {
            assertThat(a.skipped()).isEqualTo("it is limited to hip, and the run builds for cuda");
            assertThat(a.unit().name()).isEqualTo("hip-only");
        });
    }

    @Test
    void aJobWhoseArchsNameNoArchitectureOfAPlatformIsSkippedForIt() throws Exception {
        List<JobTargets.Assignment> plan = assign(List.of(cmake("k", "/p/build/k")),
                Map.of("k", JobScope.of(Set.of(), List.of("90"), true)), CUDA, HIP);
        assertThat(plan.get(0).skipped()).isNull();
        assertThat(plan.get(1).skipped()).contains("name no hip architecture").contains("gfx90a;gfx942");
    }

    @Test
    void aCommandJobThatLeavesItsPlatformOpenInARunOfSeveralTargetsIsRefused() {
        assertThatThrownBy(() -> assign(List.of(command("c1"), command("c2"), cmake("m", "/p/build/m")), Map.of(),
                CUDA, HIP))
                .isInstanceOf(ManifestException.class)
                .hasMessageContaining("the run builds for cuda and hip")
                .hasMessageContaining("\"c1\", \"c2\"")
                .hasMessageContaining("\"platforms\": [\"cuda\"]")
                .hasMessageNotContaining("\"m\"");
    }
}
