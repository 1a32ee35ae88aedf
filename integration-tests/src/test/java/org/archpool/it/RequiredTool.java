package org.archpool.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * Tests that need a real tool: skipped where it is missing on a developer's machine, but a failure when
 * {@code CI=true}, because CI installs every tool the tests need and nothing may be skipped there.
 */
final class RequiredTool {

    private RequiredTool() {
    }

    static void require(String... tools) {
        for (String tool : tools) {
            if (onPath(tool)) {
                continue;
            }
            String message = tool + " is not on the PATH; this test builds with the real tool";
            if ("true".equals(System.getenv("CI"))) {
                fail(message + " and CI=true, where .ci/run must have installed it");
            }
            Assumptions.abort(message);
        }
    }

    static boolean onPath(String tool) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }
}
