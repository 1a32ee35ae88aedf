package org.archpool.orchestrator.arch;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/** A real tool a test needs: skipped where missing on a developer's machine, a failure when {@code CI=true}. */
final class RequiredTool {

    private RequiredTool() {
    }

    static void require(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return;
            }
        }
        String message = tool + " is not on the PATH";
        if ("true".equals(System.getenv("CI"))) {
            fail(message + " and CI=true, where .ci/run must have installed it");
        }
        Assumptions.abort(message);
    }
}
