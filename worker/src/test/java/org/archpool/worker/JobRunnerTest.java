package org.archpool.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.PhaseTiming;
import org.archpool.protocol.Step;
import org.archpool.worker.exec.CancellationToken;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worker runs the steps it is given, in order, as given, and adds nothing but the hidden devices. */
@Tag("process")
class JobRunnerTest {

    @TempDir
    Path dir;

    private final JobRunner runner = JobRunner.standard();

    private BuildRequest request(Step... steps) {
        Path build = dir.resolve("build");
        CmakeJob job = new CmakeJob("k", dir.resolve("src").toString(), build.toString(), null, null, null, null,
                null, null, null, null, List.of("nothing-here"));
        return new BuildRequest("k#1", job, TestRequests.TARGET, List.of(steps), 0, dir.resolve("k.log").toString());
    }

    private Step sh(Phase phase, String script, Map<String, String> env) {
        return new Step(phase, List.of("sh", "-c", script), dir.resolve("build").toString(), env);
    }

    @Test
    void eachStepRunsInOrderWithItsOwnArgvAndEnvironmentAndTheDevicesHidden() throws Exception {
        BuildResult r = runner.run(request(
                sh(Phase.CONFIGURE, "echo configure $CUDAARCHS \"[$CUDA_VISIBLE_DEVICES]\" > steps.txt",
                        Map.of("CUDAARCHS", "90", "CUDA_VISIBLE_DEVICES", "0")),
                sh(Phase.BUILD, "echo build \"[$ROCR_VISIBLE_DEVICES]\" \"[$HIP_VISIBLE_DEVICES]\" >> steps.txt",
                        Map.of("ROCR_VISIBLE_DEVICES", "0"))), phase -> { }, new CancellationToken());

        assertThat(r.outcome()).as(r.toString()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(r.phases()).extracting(PhaseTiming::name).containsExactly(Phase.CONFIGURE, Phase.BUILD, Phase.INSPECT);
        assertThat(Files.readAllLines(dir.resolve("build/steps.txt")))
                .as("the folder was created, the steps ran in order, and no step could make a device visible")
                .containsExactly("configure 90 []", "build [] []");
        assertThat(Files.readString(dir.resolve("k.log"))).contains("$ sh -c echo configure");
    }

    @Test
    void theFirstStepThatFailsEndsTheJob() throws Exception {
        BuildResult r = runner.run(request(
                sh(Phase.CONFIGURE, "echo no; exit 4", Map.of()),
                sh(Phase.BUILD, "touch built", Map.of())), phase -> { }, new CancellationToken());

        assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(r.exitCode()).isEqualTo(4);
        assertThat(r.message()).isEqualTo("configure (sh) exited with status 4");
        assertThat(r.phases()).extracting(PhaseTiming::name).containsExactly(Phase.CONFIGURE);
        assertThat(dir.resolve("build/built")).doesNotExist();
    }
}
