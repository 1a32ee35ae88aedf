package org.archpool.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.junit.jupiter.api.Test;

/** Which paths a job's artifact rules admit: the check every cache entry passes before a restore. */
class ArtifactRulesTest {

    private static CommandJob command(List<String> argv, List<String> globs) {
        return new CommandJob("k", argv, "/w", Map.of(), null, globs, List.of("*.cu"));
    }

    private static CmakeJob cmake(List<String> globs) {
        return new CmakeJob("k", "/src", "/b", null, null, Map.of(), List.of(), List.of(), List.of(), Map.of(), null,
                globs);
    }

    @Test
    void aCommandNamingItsOutputAdmitsExactlyThatOutput() {
        ArtifactRules rules = ArtifactRules.of(command(List.of("nvcc", "-c", "k.cu", "-o", "obj/k.o"), null));
        assertThat(rules.namedOutputs()).extracting(Object::toString).containsExactly("/w/obj/k.o");
        assertThat(rules.refusal(List.of("/w/obj/k.o"))).isEmpty();
        assertThat(rules.refusal(List.of("/w/obj/k.p"))).hasValue(
                "/w/obj/k.p is not one of the outputs the job's argv names [/w/obj/k.o]");
        assertThat(rules.refusal(List.of())).hasValue("/w/obj/k.o, which the job's artifact rules require, is missing");
        assertThat(rules.refusal(List.of("/w/obj/k.o", "/w/obj/k.o"))).hasValue("/w/obj/k.o is listed twice");
    }

    @Test
    void pathsOutsideTheOutputFolderOrNotNormalAreRefused() {
        ArtifactRules rules = ArtifactRules.of(command(List.of("make"), null));
        assertThat(rules.refusal(List.of("/home/u/.bashrc"))).hasValue(
                "/home/u/.bashrc is not in the job's output folder /w");
        assertThat(rules.refusal(List.of("/w/../home/u/.bashrc"))).hasValue(
                "/w/../home/u/.bashrc is not an absolute path without . or .. in it");
        assertThat(rules.refusal(List.of("/w/./k.o"))).isPresent();
        assertThat(rules.refusal(List.of("w/k.o"))).isPresent();
        assertThat(rules.refusal(List.of("/w"))).hasValue("/w is not in the job's output folder /w");
        assertThat(rules.refusal(List.of("/wx/k.o"))).as("a sibling sharing the prefix").isPresent();
        assertThat(rules.refusal(List.of("/w/sub/k.o"))).isEmpty();
    }

    @Test
    void hiddenFoldersAndCMakeFilesHoldNoArtifacts() {
        ArtifactRules cmake = ArtifactRules.of(cmake(List.of()));
        assertThat(cmake.refusal(List.of("/b/lib/libk.a"))).isEmpty();
        assertThat(cmake.refusal(List.of("/b/.git/hooks/pre-commit"))).hasValue(
                "/b/.git/hooks/pre-commit is in /b/.git, a folder whose files are never artifacts");
        assertThat(cmake.refusal(List.of("/b/CMakeFiles/k.dir/k.o"))).isPresent();
        assertThat(cmake.refusal(List.of("/b/.hidden-file"))).as("a hidden file is collected as any").isEmpty();
        assertThat(ArtifactRules.of(cmake(List.of("CMakeFiles/**"))).refusal(List.of("/b/CMakeFiles/k.dir/k.o")))
                .as("globs may reach into CMakeFiles").isEmpty();
    }

    @Test
    void globsAdmitWhatTheyMatchAndRequireWhatTheyNameOutright() {
        ArtifactRules rules = ArtifactRules.of(command(List.of("make"), List.of("lib/k.so", "*.ptx")));
        assertThat(rules.refusal(List.of("/w/lib/k.so", "/w/a.ptx"))).isEmpty();
        assertThat(rules.refusal(List.of("/w/lib/k.so", "/w/a.cubin"))).hasValue(
                "/w/a.cubin matches none of the job's artifacts globs [lib/k.so, *.ptx]");
        assertThat(rules.refusal(List.of("/w/a.ptx"))).hasValue(
                "/w/lib/k.so, which the job's artifact rules require, is missing");
    }
}
