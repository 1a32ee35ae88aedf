package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Invariants 3 and 4: whatever the coordinator's own visibility variables say, every worker and every process
 * a job starts sees all three set and empty (and
 * {@code NVIDIA_VISIBLE_DEVICES=void}), and the architecture arrives in every convention.
 */
class WorkerEnvironmentIT {

    /** Records the job's environment, and its worker's through a {@link FaultAgent} (the job cannot see it). */
    private static String recordEnv(Path dir) {
        return "env > child.env; " + FaultAgent.ask(dir, "record-env", "0") + "; tr '\\\\0' '\\\\n' < "
                + dir.toAbsolutePath().resolve("fault-record-env.0.environ") + " > parent.env;"
                + " printf '%s\\\\n' \\\"$@\\\" > flags.txt; echo '{archs}' > archs.txt";
    }

    private static Map<String, String> read(Path file) throws Exception {
        return Files.readAllLines(file).stream().filter(l -> l.contains("="))
                .collect(Collectors.toMap(l -> l.substring(0, l.indexOf('=')), l -> l.substring(l.indexOf('=') + 1),
                        (a, b) -> b));
    }

    private static void assertHidden(Map<String, String> env, String who) {
        for (String v : List.of("CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES")) {
            assertThat(env).as(who + " has " + v + " set and empty").containsEntry(v, "");
        }
        assertThat(env).as(who + " gives a container no GPU").containsEntry("NVIDIA_VISIBLE_DEVICES", "void");
    }

    private Path runJob(Path dir, String mode, String... archArgs) throws Exception {
        Path jobDir = Files.createDirectories(dir.resolve("job"));
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[{\"id\":\"record-env\",\"kind\":\"command\",\"cwd\":\"job\","
                + "\"env\":{\"CUDA_VISIBLE_DEVICES\":\"0\",\"HIP_VISIBLE_DEVICES\":\"0\"},"
                + "\"argv\":[\"sh\",\"-c\",\"" + recordEnv(dir) + "\",\"sh\",\"{offload-arch-flags}\"]}]}");
        String[] args = new String[6 + archArgs.length];
        // The job runs no compiler, so the compiler check before dispatch has nothing to say about it.
        System.arraycopy(new String[] {"build", dir.resolve("archpool.json").toString(), "--mode", mode,
                "--no-toolchain-check", "-j1"}, 0, args, 0, 6);
        System.arraycopy(archArgs, 0, args, 6, archArgs.length);
        Archpool.Run run;
        try (FaultAgent agent = new FaultAgent(dir)) {
            run = new Archpool().in(dir)
                    .env("CUDA_VISIBLE_DEVICES", "0").env("ROCR_VISIBLE_DEVICES", "0,1").env("HIP_VISIBLE_DEVICES", "1")
                    .run(args);
        }
        assertThat(run.exitCode()).as(run.toString()).isZero();
        return jobDir;
    }

    @ParameterizedTest
    @ValueSource(strings = {"process", "thread"})
    void hipJobSeesNoDeviceAndItsArchitecture(String mode, @TempDir Path dir) throws Exception {
        Path job = runJob(dir, mode, "--platform", "hip", "--arch", "gfx942,gfx90a:xnack-");

        Map<String, String> child = read(job.resolve("child.env"));
        assertHidden(child, "the job's process");
        assertThat(child).containsEntry("HIPARCHS", "gfx942;gfx90a:xnack-")
                .containsEntry("PYTORCH_ROCM_ARCH", "gfx942;gfx90a:xnack-");
        assertThat(Files.readAllLines(job.resolve("flags.txt")))
                .containsExactly("--offload-arch=gfx942", "--offload-arch=gfx90a:xnack-");
        assertThat(Files.readString(job.resolve("archs.txt")).strip()).isEqualTo("gfx942;gfx90a:xnack-");
        if (mode.equals("process")) {
            Map<String, String> worker = read(job.resolve("parent.env"));
            assertHidden(worker, "the worker JVM");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"process", "thread"})
    void cudaJobSeesNoDeviceAndItsArchitecture(String mode, @TempDir Path dir) throws Exception {
        Path job = runJob(dir, mode, "--platform", "cuda", "--arch", "80;90");

        Map<String, String> child = read(job.resolve("child.env"));
        assertHidden(child, "the job's process");
        assertThat(child).containsEntry("CUDAARCHS", "80;90").containsEntry("TORCH_CUDA_ARCH_LIST", "8.0+PTX;9.0+PTX");
        assertThat(Files.readAllLines(job.resolve("flags.txt"))).containsExactly(
                "-gencode=arch=compute_80,code=[compute_80,sm_80]", "-gencode=arch=compute_90,code=[compute_90,sm_90]");
        if (mode.equals("process")) {
            assertHidden(read(job.resolve("parent.env")), "the worker JVM");
        }
    }
}
