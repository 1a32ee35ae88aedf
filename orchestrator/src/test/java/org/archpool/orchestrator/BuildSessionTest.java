package org.archpool.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.archpool.orchestrator.arch.ArchResolver;
import org.archpool.orchestrator.arch.Detection;
import org.archpool.orchestrator.arch.DeviceDetector;
import org.archpool.orchestrator.arch.GpuDevice;
import org.archpool.orchestrator.arch.PlatformChoice;
import org.archpool.orchestrator.arch.TargetRequest;
import org.archpool.orchestrator.arch.ProbeReport;
import org.archpool.orchestrator.pool.ThreadWorkerLauncher;
import org.archpool.orchestrator.pool.Worker;
import org.archpool.orchestrator.pool.WorkerFailedException;
import org.archpool.orchestrator.pool.WorkerLauncher;
import org.archpool.orchestrator.report.ConsoleStyle;
import org.archpool.orchestrator.report.ReportFiles;
import org.archpool.orchestrator.verify.Verification;
import org.archpool.protocol.Platform;
import org.archpool.worker.JobRunner;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Tag("process")
class BuildSessionTest {

    @TempDir
    Path dir;

    private BuildSession.Settings settings(Path manifest, int jobs, int buildParallelism, int cpus) {
        return new BuildSession.Settings(manifest, jobs,
                TargetRequest.one(new ArchResolver.Request(PlatformChoice.CUDA, null, null)),
                dir.resolve("report.json"), dir.resolve("logs"), true, null, 1, buildParallelism, 0,
                Verification.DEFAULT, new ReportFiles(null, null, null, null, null),
                new ConsoleStyle(false, false, ConsoleStyle.Verbosity.QUIET), 0, cpus);
    }

    @Test
    void workersStartWhileTheArchitectureIsBeingDetected() throws Exception {
        Path manifest = dir.resolve("archpool.json");
        Files.writeString(manifest, "{\"version\":1,\"jobs\":[{\"id\":\"a\",\"kind\":\"command\",\"argv\":[\"true\"]},"
                + "{\"id\":\"b\",\"kind\":\"command\",\"argv\":[\"true\"]}]}");
        CountDownLatch bothLaunched = new CountDownLatch(2);
        WorkerLauncher threads = new ThreadWorkerLauncher(JobRunner.standard());
        WorkerLauncher launcher = new WorkerLauncher() {
            @Override
            public Worker launch(String workerId) throws WorkerFailedException {
                bothLaunched.countDown();
                return threads.launch(workerId);
            }

            @Override
            public String mode() {
                return "thread";
            }
        };
        // A detector that finds the GPU only once both workers are being started: if workers were started
        // after the resolution, it would wait in vain and find nothing.
        DeviceDetector slowProbe = new DeviceDetector() {
            @Override
            public Platform platform() {
                return Platform.CUDA;
            }

            @Override
            public Detection detect() {
                boolean overlapped;
                try {
                    overlapped = bothLaunched.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    overlapped = false;
                }
                List<GpuDevice> found = overlapped ? List.of(new GpuDevice(Platform.CUDA, 0, null, "90", "H200", null))
                        : List.of();
                return new Detection(found, new ProbeReport("nvidia-smi", List.of("nvidia-smi"),
                        overlapped ? "detected" : "no_devices", 0, 5, found.size(), null));
            }
        };
        ArchResolver resolver = new ArchResolver(Map.of(), List.of(slowProbe),
                (command, timeout) -> {
                    throw new AssertionError("no tool runs here: " + command);
                }, Duration.ofSeconds(5));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = new BuildSession(settings(manifest, 2, 0, 8), resolver, null, logs -> launcher, Clock.systemUTC(),
                new SimpleMeterRegistry(), new PrintStream(out, true, StandardCharsets.UTF_8), System.err).run();

        assertThat(exit).as(out.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("target: cuda 90 (detected");
    }

    @ParameterizedTest(name = "-j {0}, --build-parallelism {1}, {2} CPUs, {3} workers in use: {4}")
    @CsvSource({
        "2,  0, 2,  2, 1",
        "16, 0, 16, 3, 5", // 3 jobs on 16 CPUs
        "8,  0, 4,  8, 1", // never 0
        "8,  3, 64, 8, 3", // asked for
    })
    void buildParallelismSharesTheCpusAmongTheWorkersTheBuildUses(int jobs, int asked, int cpus, int workers,
            int parallelism) {
        assertThat(settings(dir.resolve("m.json"), jobs, asked, cpus).buildParallelism(workers)).isEqualTo(parallelism);
    }
}
