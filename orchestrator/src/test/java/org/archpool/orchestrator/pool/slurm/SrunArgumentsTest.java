package org.archpool.orchestrator.pool.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The srun arguments a user may pass through, and the ones archpool sets itself. */
class SrunArgumentsTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        // long, --long=value, short, short with its value attached or after a space
        "--ntasks           | --ntasks        | use -j for more workers",
        "--ntasks=2         | --ntasks        | use -j for more workers",
        "-n                 | --ntasks        | use -j for more workers",
        "-n2                | --ntasks        | use -j for more workers",
        "--cpus-per-task    | --cpus-per-task | use --build-parallelism K",
        "--cpus-per-task=4  | --cpus-per-task | use --build-parallelism K",
        "-c                 | --cpus-per-task | use --build-parallelism K",
        "-c4                | --cpus-per-task | use --build-parallelism K",
        "--job-name         | --job-name      | so that it can cancel it",
        "--job-name=mine    | --job-name      | so that it can cancel it",
        "-J                 | --job-name      | so that it can cancel it",
        "-J x               | --job-name      | so that it can cancel it",
        "--output=f         | --output        | the worker's stdout carries the protocol",
        "-o f               | --output        | the worker's stdout carries the protocol",
        "--input=f          | --input         | the worker's stdin carries the protocol",
        "-i f               | --input         | the worker's stdin carries the protocol",
        "--error=f          | --error         | sends each worker's stderr to its log folder",
        "-e f               | --error         | sends each worker's stderr to its log folder",
        "-ef                | --error         | sends each worker's stderr to its log folder",
        "--label            | --label         | a label before each line breaks the protocol",
        "-l                 | --label         | a label before each line breaks the protocol",
        "--pty              | --pty           | a terminal mangles the protocol's lines",
        "--multi-prog       | --multi-prog    | runs archpool's worker program",
        // getopt_long, which srun reads its options with, takes any unambiguous abbreviation
        "--lab              | --label         | a label before each line breaks the protocol",
        "--out=f            | --output        | the worker's stdout carries the protocol",
        "--inp=f            | --input         | the worker's stdin carries the protocol",
        "--err=f            | --error         | sends each worker's stderr to its log folder",
        "--job-n=x          | --job-name      | so that it can cancel it",
        "--cpus-per-t=4     | --cpus-per-task | use --build-parallelism K",
        "--multi            | --multi-prog    | runs archpool's worker program",
        // short flags that take no value, bundled
        "-vl                | --label         | a label before each line breaks the protocol",
        "-Qun2              | --ntasks        | use -j for more workers"})
    void anOwnedOptionIsRefusedNamingItAndWhatToDo(String arg, String option, String why) {
        assertThat(SrunArguments.refusal(List.of(arg)))
                .startsWith("--srun-arg " + arg + " sets srun's " + option + ", which archpool sets itself: ")
                .contains(why);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"--mem-per-cpu=2G", "--time=10", "-t", "10", "--nodes=1", "-N1", "-N", "--exclusive",
        "--exact", "--constraint=a100", "-C", "-Cgpu", "--gres=gpu:0", "--account=proj", "-A", "proj",
        "--ntasks-per-node=1", "--cpus-per-gpu=2", "--partition=gpu", "-p", "-pl", "-pgpu", "--export=ALL",
        "-E", "-O", "-I", "-L", "-v", "-vvv", "--verbose", "--quiet", "--jobid=12", "--overlap",
        "--open-mode=append", "--unbuffered", "-u", "--mem=4G", "--mpi=none", "--time-min=5"})
    void aHarmlessOptionPasses(String arg) {
        assertThat(SrunArguments.refusal(List.of(arg))).isNull();
    }

    @Test
    void theFirstOwnedOneIsNamed() {
        assertThat(SrunArguments.refusal(List.of("--mem-per-cpu=2G", "-l", "--ntasks=2")))
                .startsWith("--srun-arg -l sets srun's --label");
    }

    @Test
    void noArgumentsPass() {
        assertThat(SrunArguments.refusal(List.of())).isNull();
        assertThat(SrunArguments.refusal(List.of("--mem-per-cpu=2G", "--time=10"))).isNull();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        // every spelling srun reads: --exclude=LIST, --exclude LIST, an abbreviation, -x LIST, -xLIST
        "--exclude=node7         | node7",
        "--exclude node7         | node7",
        "--exclud=n1             | n1",
        "--exclud n1             | n1",
        "-x n1                   | n1",
        "-xnode[1-3]             | node[1-3]",
        "-x node[1-3],node9      | node[1-3],node9",
        "--exclude=node[01-04]   | node[01-04]"})
    void anExcludedListIsTakenOutOfTheArguments(String args, String excluded) {
        SrunArguments.Split split = SrunArguments.excludes(List.of(args.split(" ")));
        assertThat(split.excluded()).containsExactly(excluded);
        assertThat(split.rest()).isEmpty();
    }

    @Test
    void otherArgumentsStayInTheirOrder() {
        List<String> others = List.of("--exclusive", "--exact", "--export=ALL", "--nodelist=n1", "--mem-per-cpu=2G",
                "--exclu", "-N1", "-Cgpu");
        SrunArguments.Split split = SrunArguments.excludes(others);
        assertThat(split.excluded()).isEmpty();
        assertThat(split.rest()).containsExactlyElementsOf(others);
    }

    @Test
    void everyExcludedListIsKeptInOrderAndTheRestAroundThem() {
        SrunArguments.Split split = SrunArguments.excludes(List.of("--exclusive", "--exclude=node7", "--exact",
                "--exclude", "node8", "--export=ALL", "-x", "n1", "--nodelist=n1", "-xnode[1-3]", "--exclud=n2",
                "--mem-per-cpu=2G"));
        assertThat(split.excluded()).containsExactly("node7", "node8", "n1", "node[1-3]", "n2");
        assertThat(split.rest()).containsExactly("--exclusive", "--exact", "--export=ALL", "--nodelist=n1",
                "--mem-per-cpu=2G");
    }

    @Test
    void anEmptyExcludedListIsDropped() {
        SrunArguments.Split split = SrunArguments.excludes(List.of("--exclude=", "--time=10"));
        assertThat(split.excluded()).isEmpty();
        assertThat(split.rest()).containsExactly("--time=10");
    }

    @Test
    void noArgumentsExcludeNothing() {
        assertThat(SrunArguments.excludes(List.of())).isEqualTo(new SrunArguments.Split(List.of(), List.of()));
    }
}
