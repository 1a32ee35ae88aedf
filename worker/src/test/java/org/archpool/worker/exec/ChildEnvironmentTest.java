package org.archpool.worker.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.archpool.protocol.UserLocale;
import org.junit.jupiter.api.Test;

class ChildEnvironmentTest {

    @Test
    void aStepCannotMakeADeviceVisible() {
        Map<String, String> env = ChildEnvironment.forStep(Map.of("CUDA_VISIBLE_DEVICES", "0",
                "ROCR_VISIBLE_DEVICES", "1", "CUDAARCHS", "90", "MINE", "kept"));
        assertThat(env).containsEntry("CUDA_VISIBLE_DEVICES", "").containsEntry("ROCR_VISIBLE_DEVICES", "")
                .containsEntry("HIP_VISIBLE_DEVICES", "").containsEntry("CUDAARCHS", "90")
                .containsEntry("MINE", "kept");
    }

    @Test
    void aJobGetsTheUsersLocaleBackExactlyAndNeverTheJvms() {
        // a worker JVM's environment: the user had LANG and LC_MESSAGES, and no LC_ALL
        Map<String, String> worker = UserLocale.forJvm(Map.of("LANG", "de_DE.ISO-8859-1",
                "LC_MESSAGES", "fr_FR.UTF-8", "PATH", "/usr/bin", "LANGUAGE", "de"));
        assertThat(worker).containsEntry("LC_ALL", "C.UTF-8").doesNotContainKeys("LANG", "LC_MESSAGES");
        Map<String, String> env = ChildEnvironment.forStep(worker, Map.of("CUDAARCHS", "90"));
        assertThat(env).containsEntry("LANG", "de_DE.ISO-8859-1").containsEntry("LC_MESSAGES", "fr_FR.UTF-8")
                .containsEntry("PATH", "/usr/bin").containsEntry("LANGUAGE", "de").containsEntry("CUDAARCHS", "90")
                .doesNotContainKeys("LC_ALL", UserLocale.RECORDED, UserLocale.SAVED_PREFIX + "LANG");
    }

    @Test
    void aUserWithoutLocaleVariablesGivesJobsNone() {
        Map<String, String> worker = UserLocale.forJvm(Map.of("PATH", "/usr/bin"));
        Map<String, String> env = ChildEnvironment.forStep(worker, Map.of());
        assertThat(env.keySet()).noneMatch(UserLocale::isLocaleVariable).noneMatch(n -> n.startsWith("ARCHPOOL_USER"));
    }

    @Test
    void theJobsOwnVariablesWinOverTheUsersLocale() {
        Map<String, String> worker = UserLocale.forJvm(Map.of("LC_ALL", "C"));
        assertThat(ChildEnvironment.forStep(worker, Map.of("LC_ALL", "en_US.UTF-8")))
                .containsEntry("LC_ALL", "en_US.UTF-8");
    }

    @Test
    void aRecordedLocaleIsPassedOnAsItIsNotRecordedAgain() {
        // the coordinator started by bin/archpool: its environment holds the user's record and the JVM's locale
        Map<String, String> coordinator = Map.of(UserLocale.RECORDED, "1", UserLocale.SAVED_PREFIX + "LC_ALL", "C",
                "LC_ALL", "C.UTF-8");
        assertThat(UserLocale.forJvm(coordinator)).containsEntry("LC_ALL", "C.UTF-8")
                .containsEntry(UserLocale.SAVED_PREFIX + "LC_ALL", "C").hasSize(3);
        assertThat(ChildEnvironment.forStep(coordinator, Map.of())).containsEntry("LC_ALL", "C");
    }

    @Test
    void replacingRemovesEveryInheritedLocaleVariableTheStepDoesNotSet() {
        Map<String, String> changes = ChildEnvironment.replacing(Map.of("LANG", "C"));
        System.getenv().keySet().stream().filter(UserLocale::isLocaleVariable).filter(n -> !n.equals("LANG"))
                .forEach(n -> assertThat(changes).containsEntry(n, null));
        assertThat(changes).containsEntry("LANG", "C");
        System.getenv().keySet().stream().filter(n -> !UserLocale.isLocaleVariable(n) && !n.startsWith("ARCHPOOL_USER")
                        && !ChildEnvironment.WITHHELD.contains(n))
                .forEach(n -> assertThat(changes).doesNotContainKey(n));
    }

    @Test
    void aJobDoesNotInheritTheRemoteCachesHeader() {
        Map<String, String> coordinator = Map.of("PATH", "/usr/bin",
                ChildEnvironment.REMOTE_CACHE_HEADER, "Authorization: Bearer secret");

        assertThat(ChildEnvironment.forStep(coordinator, Map.of())).containsEntry("PATH", "/usr/bin")
                .doesNotContainKey(ChildEnvironment.REMOTE_CACHE_HEADER);
        assertThat(ChildEnvironment.forStep(coordinator, Map.of(ChildEnvironment.REMOTE_CACHE_HEADER, "X-Own: 1")))
                .as("a job's own env may set it").containsEntry(ChildEnvironment.REMOTE_CACHE_HEADER, "X-Own: 1");
    }
}
