package org.archpool.protocol;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A direct compiler invocation: {@code argv} run without a shell in {@code cwd}. A manifest's argv may hold
 * the placeholders {@code {archs}} (the {@code ;}-joined list, inside any item) and {@code {offload-arch-flags}}
 * (an item of its own, replaced by one argv item per architecture); the coordinator expands them for the
 * target before it sends the job, so the argv in a {@link BuildRequest} is concrete and a worker runs it as
 * given.
 *
 * <p>{@code inputs} are globs of the files the job reads (sources and headers, relative to {@code cwd} or absolute),
 * as its author knows them: the build cache hashes them into the job's key. Null when the job declares none, which
 * makes it uncacheable; an empty list declares that it reads no file. A worker never needs them.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CommandJob(
        String id,
        List<String> argv,
        String cwd,
        Map<String, String> env,
        Long timeoutMs,
        List<String> artifacts,
        List<String> inputs) implements JobSpec {

    public CommandJob {
        JobSpec.requireValidId(id);
        Objects.requireNonNull(argv, "command job '" + id + "': argv");
        argv = List.copyOf(argv);
        if (argv.isEmpty() || argv.get(0).isBlank()) {
            throw new IllegalArgumentException("command job '" + id + "' has an empty argv");
        }
        Objects.requireNonNull(cwd, "command job '" + id + "': cwd");
        env = env == null ? Map.of() : Map.copyOf(env);
        artifacts = artifacts == null ? List.of() : List.copyOf(artifacts);
        inputs = inputs == null ? null : List.copyOf(inputs);
    }

    /** A job that declares no inputs (so the build cache cannot key it). */
    public CommandJob(String id, List<String> argv, String cwd, Map<String, String> env, Long timeoutMs,
                      List<String> artifacts) {
        this(id, argv, cwd, env, timeoutMs, artifacts, null);
    }

    /** This job with {@code argv} in place of its own (the coordinator's expansion of placeholders). */
    public CommandJob withArgv(List<String> newArgv) {
        return new CommandJob(id, newArgv, cwd, env, timeoutMs, artifacts, inputs);
    }

    @Override
    @JsonIgnore
    public String kind() {
        return "command";
    }

    @Override
    public CommandJob withId(String newId) {
        return new CommandJob(newId, argv, cwd, env, timeoutMs, artifacts, inputs);
    }
}
