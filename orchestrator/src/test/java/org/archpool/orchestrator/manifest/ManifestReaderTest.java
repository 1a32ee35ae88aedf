package org.archpool.orchestrator.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Platform;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManifestReaderTest {

    @TempDir
    Path dir;

    private final ManifestReader reader = new ManifestReader();

    @BeforeEach
    void projects() throws Exception {
        Files.createDirectories(dir.resolve("proj"));
        Files.writeString(dir.resolve("proj/CMakeLists.txt"), "project(p)\n");
        Files.createDirectories(dir.resolve("empty"));
    }

    private Manifest read(String json) throws Exception {
        Path file = dir.resolve("archpool.json");
        Files.writeString(file, json);
        return reader.read(file);
    }

    private void rejects(String json, String... fragments) {
        assertThatThrownBy(() -> read(json)).isInstanceOf(ManifestException.class)
                .satisfies(e -> {
                    for (String f : fragments) {
                        assertThat(e.getMessage()).contains(f);
                    }
                });
    }

    @Test
    void appliesDefaultsAndResolvesPathsAgainstTheManifestFolder() throws Exception {
        Manifest m = read("""
                {"version": 1,
                 "defaults": {"buildType": "Release", "defines": {"A": "1", "B": true}, "env": {"E": "x"},
                              "timeout": "10m", "buildRoot": "out"},
                 "jobs": [
                   {"id": "p", "kind": "cmake", "sourceDir": "proj", "defines": {"A": "2"}, "timeout": 30},
                   {"id": "q", "kind": "cmake", "sourceDir": "./proj", "buildDir": "elsewhere/q", "buildType": "Debug"},
                   {"id": "c", "kind": "command", "argv": ["nvcc", "{offload-arch-flags}"], "unknownField": 1}
                 ]}""");
        assertThat(m.jobs()).hasSize(3);
        CmakeJob p = (CmakeJob) m.jobs().get(0);
        assertThat(p.sourceDir()).isEqualTo(dir.resolve("proj").toString());
        assertThat(p.buildDir()).isEqualTo(dir.resolve("out/p").toString());
        assertThat(p.generator()).isEqualTo("Ninja");
        assertThat(p.buildType()).isEqualTo("Release");
        assertThat(p.defines()).containsEntry("A", "2").containsEntry("B", "ON");
        assertThat(p.env()).containsEntry("E", "x");
        assertThat(p.timeoutMs()).isEqualTo(30_000L);
        CmakeJob q = (CmakeJob) m.jobs().get(1);
        assertThat(q.buildDir()).isEqualTo(dir.resolve("elsewhere/q").toString());
        assertThat(q.buildType()).isEqualTo("Debug");
        assertThat(q.timeoutMs()).isEqualTo(600_000L);
        CommandJob c = (CommandJob) m.jobs().get(2);
        assertThat(c.cwd()).isEqualTo(dir.toString());
        assertThat(c.argv()).containsExactly("nvcc", "{offload-arch-flags}");
    }

    @Test
    void namesEachMistake() throws Exception {
        rejects("{\"version\": 1, \"jobs\": [", "not valid JSON", "line 1");
        rejects("{\"jobs\": []}", "\"version\" is missing");
        rejects("{\"version\": 2, \"jobs\": []}", "reads version 1 only");
        rejects("{\"version\": 1}", "\"jobs\" must be an array");
        rejects("{\"version\": 1, \"jobs\": []}", "\"jobs\" is empty");
        rejects("{\"version\": 1, \"jobs\": [{\"id\": \"a b\", \"kind\": \"cmake\"}]}", "jobs[0]", "\"a b\"");
        rejects("{\"version\": 1, \"jobs\": [{\"id\": \"" + "x".repeat(129) + "\", \"kind\": \"cmake\"}]}", "not allowed");
        rejects("{\"version\": 1, \"jobs\": [{\"id\": \"a\", \"kind\": \"make\"}]}", "unknown kind \"make\"");
        rejects("{\"version\": 1, \"jobs\": [{\"id\": \"a\"}]}", "job 'a'", "\"kind\" is missing");
        rejects("{\"version\": 1, \"jobs\": [{\"id\": \"a\", \"kind\": \"cmake\", \"sourceDir\": \"nope\"}]}",
                "is not a folder");
        rejects("{\"version\": 1, \"jobs\": [{\"id\": \"a\", \"kind\": \"cmake\", \"sourceDir\": \"empty\"}]}",
                "has no CMakeLists.txt");
        rejects("{\"version\": 1, \"jobs\": [{\"id\": \"a\", \"kind\": \"cmake\", \"sourceDir\": \"proj\"},"
                + "{\"id\": \"a\", \"kind\": \"command\", \"argv\": [\"true\"]}]}", "repeats the id \"a\"");
        rejects("{\"version\": 1, \"jobs\": [{\"id\": \"a\", \"kind\": \"cmake\", \"sourceDir\": \"proj\","
                + "\"buildDir\": \"out\"}, {\"id\": \"b\", \"kind\": \"cmake\", \"sourceDir\": \"proj\","
                + "\"buildDir\": \"out\", \"defines\": {\"OP\": \"scale\"}}]}", "jobs[1] (\"b\") builds in",
                "the build folder of job \"a\"", "give one of them a \"buildDir\" of its own");
        rejects("{\"version\": 1, \"jobs\": [{\"id\": \"a\", \"kind\": \"cmake\", \"sourceDir\": \"proj\","
                + "\"defines\": {\"CMAKE_CUDA_ARCHITECTURES\": \"75\"}}]}", "CMAKE_CUDA_ARCHITECTURES", "--arch");
        rejects("{\"version\": 1, \"jobs\": [{\"id\": \"a\", \"kind\": \"command\", \"argv\": []}]}", "\"argv\"");
        rejects("{\"version\": 1, \"jobs\": [{\"id\": \"a\", \"kind\": \"command\", \"argv\": [\"x\"], \"timeout\": \"0s\"}]}",
                "\"timeout\"", "positive");
        rejects("{\"version\": 1, \"jobs\": [{\"id\": \"a\", \"kind\": \"command\", \"argv\": [\"x\", 3]}]}",
                "\"argv\"[1] must be a string");
        rejects("{\"version\": 1, \"version\": 1, \"jobs\": []}", "Duplicate field");
    }

    @Test
    void aMissingManifestIsNamed() {
        assertThatThrownBy(() -> reader.read(dir.resolve("nope.json"))).isInstanceOf(ManifestException.class)
                .hasMessageContaining("nope.json does not exist");
        assertThatThrownBy(() -> reader.read(dir)).isInstanceOf(ManifestException.class)
                .hasMessageContaining("is a folder");
    }

    @Test
    void oneJobIsReadAgainstABaseFolderWithTheManifestsChecksAndNoDefaults() throws Exception {
        ObjectMapper json = new ObjectMapper();
        JobSpec job = reader.readJob(dir, json.readTree(
                "{\"id\": \"k\", \"kind\": \"cmake\", \"sourceDir\": \"proj\"}"));
        assertThat(job).isInstanceOf(CmakeJob.class);
        CmakeJob cmake = (CmakeJob) job;
        assertThat(cmake.sourceDir()).isEqualTo(dir.resolve("proj").toString());
        assertThat(cmake.buildDir()).isEqualTo(dir.resolve("build/k").toString());
        JobSpec command = reader.readJob(dir, json.readTree(
                "{\"id\": \"c\", \"kind\": \"command\", \"argv\": [\"true\"]}"));
        assertThat(((CommandJob) command).cwd()).isEqualTo(dir.toString());
        assertThatThrownBy(() -> reader.readJob(dir, json.readTree(
                "{\"id\": \"k\", \"kind\": \"cmake\", \"sourceDir\": \"nothere\"}")))
                .isInstanceOf(ManifestException.class)
                .hasMessage("job 'k': sourceDir " + dir.resolve("nothere") + " is not a folder; fix the path (relative"
                        + " paths start at " + dir + ")");
        assertThatThrownBy(() -> reader.readJob(dir, json.readTree("[1]")))
                .hasMessage("the job must be an object with \"id\" and \"kind\"");
        assertThatThrownBy(() -> reader.readJob(dir, json.readTree("{\"id\": \"k\", \"kind\": \"cmake\","
                + " \"sourceDir\": \"proj\", \"defines\": {\"CMAKE_CUDA_ARCHITECTURES\": \"75\"}}")))
                .hasMessageContaining("CMAKE_CUDA_ARCHITECTURES");
    }

    @Test
    void aJobsPlatformsAndArchsAreReadBesideItAndCheckedForEachPlatformsSyntax() throws Exception {
        Manifest m = read("""
                {"version": 1, "jobs": [
                  {"id": "k", "kind": "cmake", "sourceDir": "proj", "archs": [">=80", "gfx942"]},
                  {"id": "c", "kind": "command", "argv": ["nvcc"], "platforms": ["cuda"], "archs": ["90a"]},
                  {"id": "plain", "kind": "cmake", "sourceDir": "proj", "buildDir": "out"}]}
                """);
        assertThat(m.scope("k").listed()).containsExactlyInAnyOrder(">=80", "gfx942");
        assertThat(m.scope("k").archs().get(Platform.CUDA).entries()).containsExactly(">=80");
        assertThat(m.scope("k").archs().get(Platform.HIP).entries()).containsExactly("gfx942");
        assertThat(m.scope("k").defaultBuildDir()).isTrue();
        assertThat(m.scope("c").platforms()).containsExactly(Platform.CUDA);
        assertThat(m.scope("c").archs()).containsOnlyKeys(Platform.CUDA);
        assertThat(m.scope("c").allows(Platform.HIP)).isFalse();
        assertThat(m.scope("plain").defaultBuildDir()).isFalse();
        assertThat(m.scope("plain").archs()).isNull();

        rejects("{\"version\": 1, \"jobs\": [{\"id\": \"a\", \"kind\": \"command\", \"argv\": [\"x\"],"
                + " \"platforms\": [\"rocm\"]}]}", "job \"a\"", "\"platforms\" names \"rocm\"", "\"cuda\" or \"hip\"");
        rejects("{\"version\": 1, \"jobs\": [{\"id\": \"a\", \"kind\": \"command\", \"argv\": [\"x\"],"
                + " \"platforms\": []}]}", "\"platforms\" is empty");
        rejects("{\"version\": 1, \"jobs\": [{\"id\": \"a\", \"kind\": \"command\", \"argv\": [\"x\"],"
                + " \"archs\": []}]}", "\"archs\" is empty", "leave it out");
        rejects("{\"version\": 1, \"jobs\": [{\"id\": \"a\", \"kind\": \"command\", \"argv\": [\"x\"],"
                + " \"platforms\": [\"cuda\"], \"archs\": [\"gfx942\"]}]}", "lists gfx942 for hip",
                "\"platforms\" leaves hip out");
        rejects("{\"version\": 1, \"jobs\": [{\"id\": \"a\", \"kind\": \"command\", \"argv\": [\"x\"],"
                + " \"archs\": [\">=90a\"]}]}", "job \"a\"", "\"archs\"", ">=90a");
    }
}
