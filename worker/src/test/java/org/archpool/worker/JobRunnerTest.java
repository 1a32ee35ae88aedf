package org.archpool.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.PhaseTiming;
import org.archpool.protocol.Step;
import org.archpool.worker.exec.CancellationToken;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worker runs the steps it is given, in order, as given, and adds nothing but the hidden devices and
 * a temporary folder of the job's own. */
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

    private BuildRequest job(String id, Map<String, String> env, String script) {
        Path build = dir.resolve(id);
        CommandJob job = new CommandJob(id, List.of("sh", "-c", script), build.toString(), env, null, null);
        return new BuildRequest(id + "#1", job, TestRequests.TARGET,
                List.of(new Step(Phase.BUILD, job.argv(), build.toString(), env)), 0,
                dir.resolve(id + ".log").toString());
    }

    /**
     * nvcc names its temporary files after its PID ({@code /tmp/tmpxft_00000002_…}); in each step's PID
     * namespace the PIDs are the same, so two jobs at once used one file. Each job has a TMPDIR of its own.
     */
    @Test
    void jobsAtOnceNeverShareATemporaryFileNamedAfterTheirPid() throws Exception {
        String script = "f=\"${TMPDIR:-/tmp}/tmpxft_$$\"; set -C; echo \"$ID\" > \"$f\" || exit 3; "
                + "touch \"$READY/$ID\"; n=0; while [ \"$(ls \"$READY\" | wc -l)\" -lt 2 ]; do "
                + "n=$((n+1)); [ $n -gt 400 ] && exit 5; sleep 0.025; done; grep -qx \"$ID\" \"$f\" || exit 4; "
                + "echo \"$TMPDIR\" > tmpdir.txt";
        Path ready = Files.createDirectory(dir.resolve("ready"));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<BuildResult>> results = new ArrayList<>();
            for (String id : List.of("a", "b")) {
                BuildRequest r = job(id, Map.of("ID", id, "READY", ready.toString()), script);
                results.add(pool.submit(() -> runner.run(r, phase -> { }, new CancellationToken())));
            }
            for (Future<BuildResult> f : results) {
                BuildResult r = f.get(30, TimeUnit.SECONDS);
                assertThat(r.outcome()).as(r + "\n" + Files.readString(Path.of(r.logPath())))
                        .isEqualTo(Outcome.SUCCEEDED);
            }
        } finally {
            pool.shutdownNow();
        }
        String a = Files.readString(dir.resolve("a/tmpdir.txt")).strip();
        String b = Files.readString(dir.resolve("b/tmpdir.txt")).strip();
        assertThat(a).isNotEqualTo(b).contains("archpool-a-");
        assertThat(Path.of(a)).as("removed with the job").doesNotExist();
        assertThat(Path.of(b)).doesNotExist();
    }

    @Test
    void theTemporaryFolderIsMadeWhereTheJobsTmpdirPointsAndRemovedWithoutFollowingLinks() throws Exception {
        Path scratch = Files.createDirectory(dir.resolve("scratch"));
        Path outside = Files.writeString(dir.resolve("keep.txt"), "kept");
        BuildResult r = runner.run(job("k", Map.of("TMPDIR", scratch.toString()),
                "echo \"$TMPDIR\" > tmpdir.txt; mkdir \"$TMPDIR/ro\"; touch \"$TMPDIR/ro/f\"; "
                        + "chmod 500 \"$TMPDIR/ro\"; ln -s " + outside + " \"$TMPDIR/link\"; "
                        + "ln -s " + dir + " \"$TMPDIR/dirlink\""), phase -> { }, new CancellationToken());

        assertThat(r.outcome()).as(r.toString()).isEqualTo(Outcome.SUCCEEDED);
        Path used = Path.of(Files.readString(dir.resolve("k/tmpdir.txt")).strip());
        assertThat(used.getParent()).isEqualTo(scratch);
        assertThat(scratch).isEmptyDirectory();
        assertThat(outside).hasContent("kept");
        assertThat(dir.resolve("k/tmpdir.txt")).exists();
    }

    @Test
    void aTmpdirThatCannotBeUsedFailsTheJobSayingSo() {
        BuildResult r = runner.run(job("k", Map.of("TMPDIR", dir.resolve("missing").toString()), "true"),
                phase -> { }, new CancellationToken());

        assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(r.message()).startsWith("cannot create the job's temporary folder: ")
                .contains(dir.resolve("missing").toString()).endsWith("that you can write");
    }
}
