package org.archpool.orchestrator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code --launcher}, {@code --partition} and {@code --srun-arg} mistakes on {@code archpool build}, and a
 * {@code --launcher slurm} where Slurm is not installed: exit code 2, one short paragraph that names the flags
 * and the fix, no stack trace, and no job started. The PATH is an empty folder unless a case says otherwise.
 */
class SlurmFlagsTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private Path manifest;
    private Path emptyBin;

    @BeforeEach
    void manifest() throws IOException {
        manifest = dir.resolve("archpool.json");
        Files.writeString(manifest, "{\"version\": 1, \"jobs\": [{\"id\": \"canary\", \"kind\": \"command\","
                + " \"argv\": [\"touch\", \"canary-ran\"]}]}");
        emptyBin = Files.createDirectories(dir.resolve("empty-bin"));
    }

    private static Arguments flags(List<String> args, String... fragments) {
        return Arguments.of(args, List.of(fragments));
    }

    static Stream<Arguments> mistakes() {
        return Stream.of(
                flags(List.of("--launcher", "slurm", "--mode", "thread"), "--launcher slurm", "--mode thread",
                        "leave out --mode"),
                flags(List.of("--mode", "thread", "--launcher=SLURM"), "--launcher slurm", "--mode thread"),
                flags(List.of("--partition", "x"), "--partition applies to Slurm workers only",
                        "add --launcher slurm"),
                flags(List.of("--launcher", "local", "--partition", "x"), "--partition applies to Slurm workers only"),
                flags(List.of("--srun-arg=--mem-per-cpu=2G"), "--srun-arg applies to Slurm workers only",
                        "add --launcher slurm"),
                flags(List.of("--launcher", "slurm", "--srun-arg=--ntasks=4"), "--srun-arg --ntasks=4",
                        "srun's --ntasks", "which archpool sets itself", "use -j", "leave it out"),
                flags(List.of("--launcher", "slurm", "--srun-arg=--time=10", "--srun-arg=-l"), "--srun-arg -l",
                        "srun's --label", "breaks the protocol"),
                flags(List.of("--launcher", "slurm", "--srun-arg=-c4"), "srun's --cpus-per-task",
                        "--build-parallelism K"),
                flags(List.of("--launcher", "slurm", "--partition", "gpu a100"), "--partition 'gpu a100'",
                        "is not a partition name", "sinfo"),
                flags(List.of("--launcher", "slurm", "--partition="), "is not a partition name"),
                flags(List.of("--launcher", "slurm"), "--launcher slurm needs Slurm's srun", "srun is not on the PATH",
                        "--launcher local"),
                flags(List.of("--launcher", "slurm", "--partition", "gpu", "--srun-arg=--time=10", "-j", "2"),
                        "--launcher slurm needs Slurm's srun"),
                flags(List.of("--launcher", "bogus"), "--launcher", "bogus"),
                flags(List.of("--launcher"), "--launcher"));
    }

    private int build(Map<String, String> env, List<String> args) {
        String[] argv = Stream.concat(Stream.of("build", manifest.toString(), "--arch", "90"), args.stream())
                .toArray(String[]::new);
        return Main.run(argv, Main.context(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), env));
    }

    private void assertRefusedWithOneParagraph(int code, List<String> fragments) {
        String err = this.err.toString(StandardCharsets.UTF_8);
        assertThat(code).as(err).isEqualTo(ExitCodes.USAGE);
        assertThat(err).startsWith("archpool: ").contains(fragments)
                .doesNotContain("\tat ", "Exception", "internal error").hasSizeLessThan(2048);
        assertThat(err.strip().lines()).as("one paragraph: " + err).hasSizeBetween(1, 4).noneMatch(String::isBlank);
        assertThat(out.toString(StandardCharsets.UTF_8)).as("nothing on stdout").isEmpty();
        assertThat(dir.resolve("canary-ran")).as("a job ran").doesNotExist();
        assertThat(dir.resolve(".archpool")).as("logs or a report were written").doesNotExist();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mistakes")
    void isRefusedWithOneClearParagraphAndNothingRuns(List<String> args, List<String> fragments) {
        assertRefusedWithOneParagraph(build(Map.of("PATH", emptyBin.toString()), args), fragments);
    }

    @Test
    void insideAnAllocationWithoutSrunTheMessageIsTheSame() {
        int code = build(Map.of("PATH", emptyBin.toString(), "SLURM_JOB_ID", "12", "SLURM_NTASKS", "4"),
                List.of("--launcher", "slurm"));
        assertRefusedWithOneParagraph(code, List.of("--launcher slurm needs Slurm's srun", "srun is not on the PATH"));
    }

    @Test
    void theOptionsAreInTheBuildHelp() {
        int code = Main.run(new String[] {"build", "--help"}, Main.context(new PrintStream(out, true,
                StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), Map.of()));
        assertThat(code).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--launcher=local|slurm", "--partition=NAME",
                "--srun-arg=ARG");
    }

    /** The checks that run the {@code srun} found on the PATH: a fake one, a shell script. */
    @Nested
    @Tag("process")
    class WithAnSrunOnThePath {

        @Test
        void anSrunThatFailsItsVersionCheckIsNamedWithWhatItSaid() throws IOException {
            Path bin = Files.createDirectories(dir.resolve("bin"));
            Path srun = bin.resolve("srun");
            Files.writeString(srun, "#!/bin/sh\necho 'srun: error: resolve_ctls_from_dns_srv: res_nsearch error' >&2\n"
                    + "exit 1\n");
            Files.setPosixFilePermissions(srun, PosixFilePermissions.fromString("rwxr-xr-x"));

            int code = build(Map.of("PATH", bin.toString()), List.of("--launcher", "slurm"));

            assertRefusedWithOneParagraph(code, List.of("--launcher slurm needs Slurm's srun",
                    "'srun --version' exited with status 1: srun: error: resolve_ctls_from_dns_srv: res_nsearch error",
                    "--launcher local"));
        }
    }
}
