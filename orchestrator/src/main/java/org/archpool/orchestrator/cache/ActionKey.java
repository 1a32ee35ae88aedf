package org.archpool.orchestrator.cache;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.archpool.orchestrator.toolchain.ConcreteJob;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.Step;
import org.archpool.protocol.Target;

/**
 * A job's cache key: the SHA-256 of a canonical JSON document ({@link #document()}) that holds the key's version,
 * the job as it will run (kind; for {@code cmake} its folders, generator, build type, defines, configure and build
 * arguments, targets and the configure command with the architecture define; for {@code command} its argv after
 * placeholder expansion, cwd and the program it runs; for both the environment of its steps, its artifact globs),
 * the resolved target (platform and the sorted, de-duplicated architecture list), the toolchain's identity, the
 * digest of its inputs and the value of each variable of the environment that its CMake files read by name. Its id is not part of it: two jobs that run the same thing share an entry. Nor is the
 * {@code --parallel} of a CMake build, which changes how fast, not what, is built.
 */
public record ActionKey(String sha256, String document) {

    /**
     * Changes whenever what a key or its entry covers changes, so that old entries are never read as new ones: 3 since
     * an entry of a {@code cmake} job holds the files its build read outside its source folder ({@link ReadSet}).
     */
    public static final int VERSION = 4;

    private static final ObjectMapper CANONICAL = new ObjectMapper()
            .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

    /** The key of a job that reads no variable of the environment by name. */
    public static ActionKey of(ConcreteJob concrete, Target target, ToolchainIdentity toolchain, String inputs,
                               String program) {
        return of(concrete, target, toolchain, inputs, program, Map.of());
    }

    /**
     * @param program         for a command job, the identity of the program its argv[0] runs
     *                        ({@link ToolchainIdentity#program}); ignored for cmake jobs
     * @param environmentRead the variables the job's CMake files read ({@code $ENV{NAME}}), each with the value the
     *                        job's processes get, or null where they get none
     */
    public static ActionKey of(ConcreteJob concrete, Target target, ToolchainIdentity toolchain, String inputs,
                               String program, Map<String, String> environmentRead) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("keyVersion", VERSION);
        doc.put("kind", concrete.job().kind());
        doc.put("platform", target.platform().wireName());
        doc.put("archs", List.copyOf(new TreeSet<>(target.archs())));
        doc.put("toolchain", toolchain.sha256());
        doc.put("inputs", inputs);
        doc.put("env", new TreeMap<>(concrete.steps().get(0).env()));
        if (!environmentRead.isEmpty()) {
            doc.put("environmentRead", new TreeMap<>(environmentRead));
        }
        doc.put("artifacts", concrete.job().artifacts());
        if (concrete.job() instanceof CmakeJob c) {
            doc.put("sourceDir", c.sourceDir());
            doc.put("buildDir", c.buildDir());
            doc.put("generator", c.generator());
            doc.put("buildType", c.buildType());
            doc.put("defines", new TreeMap<>(c.defines()));
            doc.put("configureArgs", c.configureArgs());
            doc.put("buildArgs", c.buildArgs());
            doc.put("targets", c.targets());
            Step configure = concrete.steps().get(0);
            doc.put("configure", configure.argv());
        } else {
            CommandJob c = (CommandJob) concrete.job();
            doc.put("argv", c.argv());
            doc.put("cwd", c.cwd());
            doc.put("inputGlobs", c.inputs());
            doc.put("program", program);
        }
        try {
            String text = CANONICAL.writeValueAsString(doc);
            return new ActionKey(Digests.of(text), text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a key document of strings and lists cannot fail to encode", e);
        }
    }
}
