package org.archpool.orchestrator.manifest;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.archpool.protocol.JobSpec;

/**
 * A read manifest: its file, and its jobs in file order with defaults applied and every path absolute.
 */
public record Manifest(Path file, int version, List<JobSpec> jobs) {

    /** The only manifest version this code reads. */
    public static final int VERSION = 1;

    public Manifest {
        Objects.requireNonNull(file, "file");
        jobs = List.copyOf(jobs);
    }

    /** The folder that relative paths in the manifest start from. */
    public Path baseDir() {
        return file.toAbsolutePath().getParent();
    }
}
