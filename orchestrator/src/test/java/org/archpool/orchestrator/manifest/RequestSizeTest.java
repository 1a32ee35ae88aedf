package org.archpool.orchestrator.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.codec.MessageReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A job whose request could not reach a worker (one protocol line, at most 4 MiB) is refused unread by any worker. */
class RequestSizeTest {

    @TempDir
    Path dir;

    private Path manifest(String argName, int bytes, String where) throws Exception {
        String big = "x".repeat(bytes);
        String fields = where.equals("argv") ? "\"argv\": [\"echo\", \"" + big + "\"]"
                : "\"argv\": [\"true\"], \"env\": {\"" + argName + "\": \"" + big + "\"}";
        return Files.writeString(dir.resolve("m.json"), "{\"version\": 1, \"jobs\": [{\"id\": \"small\", \"kind\":"
                + " \"command\", \"argv\": [\"true\"]}, {\"id\": \"big\", \"kind\": \"command\", " + fields + "}]}");
    }

    @Test
    void anArgvOverTheLimitIsRefusedNamingTheJobItsSizeAndTheLimit() throws Exception {
        Path file = manifest("A", MessageReader.DEFAULT_MAX_LINE_BYTES + 10, "argv");
        assertThatThrownBy(() -> new ManifestReader().read(file)).isInstanceOf(ManifestException.class)
                .hasMessageContaining("job \"big\" is too large to send to a worker")
                .hasMessageContaining("4.00 MiB (41943")
                .hasMessageContaining("the protocol's limit of 4.00 MiB (4194304 bytes) per message")
                .hasMessageNotContaining("\n");
    }

    @Test
    void halfTheLimitIsTooMuchBecauseARequestCarriesTheJobTwice() throws Exception {
        Path file = manifest("A", MessageReader.DEFAULT_MAX_LINE_BYTES / 2 + 1, "argv");
        assertThatThrownBy(() -> new ManifestReader().read(file)).hasMessageContaining("job \"big\" is too large")
                .hasMessageContaining("a request carries them twice");
        Path env = manifest("BIG", MessageReader.DEFAULT_MAX_LINE_BYTES / 2 + 1, "env");
        assertThatThrownBy(() -> new ManifestReader().read(env)).hasMessageContaining("job \"big\" is too large");
    }

    @Test
    void aLargeJobThatFitsIsAccepted() throws Exception {
        int fits = MessageReader.DEFAULT_MAX_LINE_BYTES / 2 - ManifestReader.REQUEST_RESERVE_BYTES;
        Manifest m = new ManifestReader().read(manifest("A", fits, "argv"));
        assertThat(((CommandJob) m.jobs().get(1)).argv().get(1)).hasSize(fits);
    }
}
