package org.archpool.orchestrator.pool;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.archpool.protocol.UserLocale;
import org.archpool.worker.exec.ChildEnvironment;
import org.junit.jupiter.api.Test;

class WorkerSpecTest {

    private static WorkerSpec spec(Map<String, String> env) {
        return WorkerSpec.ofCurrentJvm(env, Path.of("/tmp/logs"), Duration.ofSeconds(30), Duration.ofSeconds(10));
    }

    @Test
    void aWorkerJvmRunsUnderUtf8AndCarriesTheUsersLocaleForItsJobs() {
        Map<String, String> env = spec(Map.of("LC_ALL", "C", "LC_NUMERIC", "de_DE", "PATH", "/usr/bin",
                "CUDA_VISIBLE_DEVICES", "0")).processBuilder(List.of("java"), Path.of("/tmp/x.log"))
                .environment();
        assertThat(env).containsEntry("LC_ALL", UserLocale.JVM_LOCALE).doesNotContainKey("LC_NUMERIC")
                .containsEntry(UserLocale.RECORDED, "1").containsEntry(UserLocale.SAVED_PREFIX + "LC_ALL", "C")
                .containsEntry(UserLocale.SAVED_PREFIX + "LC_NUMERIC", "de_DE").containsEntry("PATH", "/usr/bin")
                .containsEntry("CUDA_VISIBLE_DEVICES", "");
        assertThat(UserLocale.of(env)).isEqualTo(Map.of("LC_ALL", "C", "LC_NUMERIC", "de_DE"));
    }

    @Test
    void aWorkerJvmDoesNotGetTheRemoteCachesHeader() {
        Map<String, String> env = spec(Map.of("PATH", "/usr/bin", ChildEnvironment.REMOTE_CACHE_HEADER,
                "Authorization: Bearer secret")).processBuilder(List.of("java"), Path.of("/tmp/x.log")).environment();
        assertThat(env).containsEntry("PATH", "/usr/bin").doesNotContainKey(ChildEnvironment.REMOTE_CACHE_HEADER);
    }

    @Test
    void aWorkerJvmPrintsItsOwnErrorsOnStderrNotOnTheProtocolStream() {
        assertThat(WorkerSpec.DEFAULT_JVM_OPTIONS).contains("-XX:+DisplayVMOutputToStderr");
    }
}
