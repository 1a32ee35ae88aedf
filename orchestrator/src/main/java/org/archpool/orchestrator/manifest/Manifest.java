package org.archpool.orchestrator.manifest;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.archpool.protocol.JobSpec;

/**
 * A read manifest: its file, its jobs in file order with defaults applied and every path absolute, and what each job
 * says about the targets it is built for, by id.
 */
public record Manifest(Path file, int version, List<JobSpec> jobs, Map<String, JobScope> scopes) {

    /** The only manifest version this code reads. */
    public static final int VERSION = 1;

    public Manifest {
        Objects.requireNonNull(file, "file");
        jobs = List.copyOf(jobs);
        scopes = Map.copyOf(scopes);
    }

    /** A manifest whose jobs say nothing about their targets. */
    public Manifest(Path file, int version, List<JobSpec> jobs) {
        this(file, version, jobs, Map.of());
    }

    /** What job {@code id} says about its targets; {@link JobScope#ANY} when nothing. */
    public JobScope scope(String id) {
        return scopes.getOrDefault(id, JobScope.ANY);
    }

    /** The folder that relative paths in the manifest start from. */
    public Path baseDir() {
        return file.toAbsolutePath().getParent();
    }
}
