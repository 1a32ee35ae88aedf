package org.archpool.orchestrator.manifest;

import static org.archpool.protocol.UntrustedText.printable;
import static org.archpool.protocol.UntrustedText.quote;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.archpool.orchestrator.arch.ArchSyntaxException;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Step;
import org.archpool.protocol.Target;
import org.archpool.protocol.codec.MessageCodec;
import org.archpool.protocol.codec.MessageReader;

/**
 * Reads a version-1 manifest:
 * <pre>
 * {"version": 1,
 *  "defaults": {"generator", "buildType", "buildRoot", "defines", "env", "timeout", "configureArgs", "buildArgs"},
 *  "jobs": [{"id", "kind": "cmake", "sourceDir", "buildDir", …} | {"id", "kind": "command", "argv", "cwd", …}]}
 * </pre>
 * Relative paths start at the manifest's folder; a cmake job's build folder defaults to
 * {@code <buildRoot>/<id>} with {@code buildRoot} defaulting to {@code build}. Unknown fields are ignored.
 */
public final class ManifestReader {

    /** Larger files are refused unread: a manifest lists jobs, and a huge file is the wrong file. */
    public static final int MAX_BYTES = 16 * 1024 * 1024;

    /**
     * What a request may need beyond twice the job: the target and the compiler flags that name it, the log
     * path, the request id, the variables the worker adds.
     */
    static final int REQUEST_RESERVE_BYTES = 64 * 1024;

    private static final Target SIZE_PROBE_TARGET = new Target(Platform.CUDA, List.of("90"));

    private final MessageCodec codec = new MessageCodec();

    private final ObjectMapper mapper = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    public Manifest read(Path file) throws ManifestException {
        Path path = file.toAbsolutePath().normalize();
        byte[] bytes;
        try {
            if (Files.isDirectory(path)) {
                throw new ManifestException("manifest " + file + " is a folder; give the path of its JSON file");
            }
            bytes = readAtMost(path, MAX_BYTES);
        } catch (NoSuchFileException e) {
            throw new ManifestException("manifest " + file + " does not exist; check the path (relative paths start at "
                    + Path.of("").toAbsolutePath() + ")");
        } catch (AccessDeniedException e) {
            throw new ManifestException("cannot read manifest " + file + ": permission denied; check its permissions");
        } catch (IOException e) {
            throw new ManifestException("cannot read manifest " + file + ": " + printable(e.getMessage(), 300));
        }
        if (bytes == null) {
            throw new ManifestException("manifest " + file + " is larger than " + (MAX_BYTES >> 20)
                    + " MiB; a manifest only lists jobs: check that this is the right file");
        }
        JsonNode root;
        try (JsonParser parser = mapper.createParser(bytes)) {
            try {
                root = mapper.readTree(parser);
                if (root == null || root.isMissingNode()) {
                    throw new ManifestException("manifest " + file + " is empty; write {\"version\": 1, \"jobs\": [...]}");
                }
                if (parser.nextToken() != null) {
                    JsonLocation at = parser.currentTokenLocation();
                    throw new ManifestException("manifest " + file + " goes on after its top-level value, at line "
                            + at.getLineNr() + ", column " + at.getColumnNr()
                            + "; a manifest is one JSON object: remove what follows it");
                }
            } catch (JsonProcessingException e) {
                throw syntaxError(file, e, parser);
            }
        } catch (IOException e) {
            throw new ManifestException("cannot read manifest " + file + ": " + printable(e.getMessage(), 300));
        }
        return parse(path, root);
    }

    /** The file's bytes, or null when it holds more than {@code limit} (a device or a pipe may never end). */
    private static byte[] readAtMost(Path path, int limit) throws IOException {
        try (InputStream in = Files.newInputStream(path)) {
            byte[] bytes = in.readNBytes(limit + 1);
            return bytes.length > limit ? null : bytes;
        }
    }

    private static ManifestException syntaxError(Path file, JsonProcessingException e, JsonParser parser) {
        JsonLocation at = e.getLocation() != null ? e.getLocation() : parser.currentLocation();
        String where = at == null || at.getLineNr() < 1 ? ""
                : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
        String detail = e.getOriginalMessage() == null ? "malformed JSON" : e.getOriginalMessage()
                // Jackson names the source in nested locations; the file is named already
                .replaceAll("\\[Source: [^\\]]*?line: (\\d+), column: (\\d+)\\]", "line $1, column $2")
                .replaceAll(", from `[A-Za-z.()]*`", "");
        detail = printable(detail, 300);
        if (e instanceof StreamConstraintsException) {
            return new ManifestException("manifest " + file + " is too large to read" + where + ": " + detail
                    + "; a manifest needs no value that long or that deeply nested: check that this is the right file");
        }
        if (detail.startsWith("Duplicate field")) {
            return new ManifestException("manifest " + file + " is not valid JSON" + where + ": " + detail
                    + "; a name may appear once in an object: remove one of them");
        }
        return new ManifestException("manifest " + file + " is not valid JSON" + where + ": " + detail
                + (detail.contains("UTF-8") ? ". Save the file as UTF-8." : ". Fix the JSON syntax there."));
    }

    /** A JSON value of the user's, shortened for a message. */
    static String show(JsonNode value) {
        return printable(String.valueOf(value), 80);
    }

    /** Validates an already-parsed tree; {@code file} locates relative paths and names the manifest in messages. */
    public Manifest parse(Path file, JsonNode root) throws ManifestException {
        Path path = file.toAbsolutePath().normalize();
        Context ctx = new Context(path.getParent(), "manifest " + path + ": ");
        if (root == null || !root.isObject()) {
            throw ctx.error("the top level must be a JSON object {\"version\": 1, \"jobs\": [...]}");
        }
        JsonNode version = root.get("version");
        if (version == null) {
            throw ctx.error("\"version\" is missing; add \"version\": 1");
        }
        if (!version.isInt() || version.intValue() != Manifest.VERSION) {
            throw ctx.error("\"version\" is " + show(version) + " but this archpool reads version " + Manifest.VERSION
                    + " only; write \"version\": 1 or use the archpool release that matches the manifest");
        }
        Defaults defaults = readDefaults(ctx, root.get("defaults"));
        JsonNode jobs = root.get("jobs");
        if (jobs == null || !jobs.isArray()) {
            throw ctx.error("\"jobs\" must be an array of job objects: \"jobs\": [{\"id\": ..., \"kind\": ...}, ...]");
        }
        if (jobs.isEmpty()) {
            throw ctx.error("\"jobs\" is empty; add at least one job");
        }
        List<JobSpec> specs = new ArrayList<>();
        Map<String, JobScope> scopes = new HashMap<>();
        Set<String> ids = new HashSet<>();
        Map<String, String> buildFolders = new HashMap<>();
        for (int i = 0; i < jobs.size(); i++) {
            JobSpec spec = readJob(ctx, defaults, jobs.get(i), "jobs[" + i + "]");
            if (!ids.add(spec.id())) {
                throw ctx.error("jobs[" + i + "] repeats the id " + quote(spec.id()) + "; job ids must be unique: rename one of them");
            }
            if (spec instanceof CmakeJob c && buildFolders.putIfAbsent(c.buildDir(), c.id()) != null) {
                throw ctx.error("jobs[" + i + "] (" + quote(c.id()) + ") builds in " + quote(c.buildDir()) + ", the"
                        + " build folder of job " + quote(buildFolders.get(c.buildDir())) + ": two builds in one"
                        + " folder overwrite each other's files; give one of them a \"buildDir\" of its own");
            }
            specs.add(spec);
            JobScope scope = readScope(ctx, jobs.get(i), "job " + quote(spec.id()));
            if (!scope.equals(JobScope.ANY)) {
                scopes.put(spec.id(), scope);
            }
        }
        return new Manifest(path, Manifest.VERSION, specs, scopes);
    }

    /**
     * Reads one job object, as an entry of a manifest's {@code jobs} with no {@code defaults}, with the same checks
     * and messages: relative paths start at {@code baseDir} (absolute), and a cmake job's build folder defaults to
     * {@code build/<id>} there. {@code archpool serve} reads each submitted job this way.
     *
     * @throws ManifestException naming the field, the problem and the fix
     */
    public JobSpec readJob(Path baseDir, JsonNode job) throws ManifestException {
        if (!baseDir.isAbsolute()) {
            throw new IllegalArgumentException("the base folder must be absolute: " + baseDir);
        }
        return readJob(new Context(baseDir.normalize(), ""), Defaults.NONE, job, "the job");
    }

    /**
     * What a job object says about its targets: {@code "platforms"} (a list of {@code cuda}, {@code hip}),
     * {@code "archs"} (the architectures it supports, checked for each platform's syntax) and whether it names its
     * build folder.
     *
     * @throws ManifestException naming the field, the problem and the fix
     */
    public JobScope readScope(JsonNode job, String where) throws ManifestException {
        return readScope(new Context(Path.of("/"), ""), job, where);
    }

    private JobScope readScope(Context ctx, JsonNode node, String where) throws ManifestException {
        Set<Platform> platforms = EnumSet.noneOf(Platform.class);
        if (node.hasNonNull("platforms")) {
            List<String> names = ctx.stringList(node, "platforms", where);
            if (names.isEmpty()) {
                throw ctx.error(where + ": \"platforms\" is empty, which would build the job for no target; leave it"
                        + " out to build for every platform of the run, or name some: [\"cuda\"], [\"hip\"]");
            }
            for (String name : names) {
                try {
                    platforms.add(Platform.fromWire(name));
                } catch (IllegalArgumentException e) {
                    throw ctx.error(where + ": \"platforms\" names " + quote(name) + ", which is not a platform;"
                            + " use \"cuda\" or \"hip\"");
                }
            }
        }
        List<String> archs = null;
        if (node.hasNonNull("archs")) {
            archs = ctx.stringList(node, "archs", where);
            if (archs.isEmpty()) {
                throw ctx.error(where + ": \"archs\" is empty, which would skip the job for every target; leave it"
                        + " out to build for every architecture of the run, or list those the job supports, such"
                        + " as [\"90a\"] or [\">=80\", \"gfx942\"]");
            }
        }
        try {
            return JobScope.of(platforms, archs, !node.hasNonNull("buildDir"));
        } catch (ArchSyntaxException e) {
            throw ctx.error(where + ": \"archs\": " + e.getMessage());
        }
    }

    /**
     * Refuses a job whose request could not reach a worker: a request is one protocol line of at most
     * {@link MessageReader#DEFAULT_MAX_LINE_BYTES}, and it carries the job twice (as the job, and again as its
     * concrete steps: the argv, the environment, the defines), plus what the coordinator adds (the target and its
     * compiler flags, the log path, the request id), for which {@link #REQUEST_RESERVE_BYTES} are kept.
     */
    private void requireFitsTheProtocol(Context ctx, JobSpec spec) throws ManifestException {
        long jobBytes = codec.encode(new BuildRequest("", spec, SIZE_PROBE_TARGET,
                List.of(new Step(Phase.COMMAND, List.of("x"), "/", Map.of())), 0, "")).length;
        long needed = 2 * jobBytes + REQUEST_RESERVE_BYTES;
        if (needed > MessageReader.DEFAULT_MAX_LINE_BYTES) {
            throw ctx.error("job " + quote(spec.id()) + " is too large to send to a worker: its argv, environment"
                    + " and other fields come to " + mib(jobBytes) + " encoded, and a request carries them twice"
                    + " (as the job and as its steps), so it would need about " + mib(needed) + ", over the"
                    + " protocol's limit of " + mib(MessageReader.DEFAULT_MAX_LINE_BYTES) + " per message; pass"
                    + " the long arguments in a file instead (a response file such as @args.txt, or a script)");
        }
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.2f MiB (%d bytes)", bytes / 1048576.0, bytes);
    }

    private record Defaults(String generator, String buildType, String buildRoot, Map<String, String> defines,
                            Map<String, String> env, Long timeoutMs, List<String> configureArgs,
                            List<String> buildArgs) {

        static final Defaults NONE = new Defaults(null, null, "build", Map.of(), Map.of(), null, List.of(), List.of());
    }

    private Defaults readDefaults(Context ctx, JsonNode node) throws ManifestException {
        if (node == null || node.isNull()) {
            return Defaults.NONE;
        }
        if (!node.isObject()) {
            throw ctx.error("\"defaults\" must be an object such as {\"buildType\": \"Release\", \"timeout\": \"10m\"}");
        }
        String where = "defaults";
        String buildRoot = ctx.string(node, "buildRoot", where, false);
        return new Defaults(
                ctx.string(node, "generator", where, false),
                ctx.string(node, "buildType", where, false),
                buildRoot == null ? "build" : buildRoot,
                ctx.stringMap(node, "defines", where),
                ctx.stringMap(node, "env", where),
                ctx.timeout(node, where),
                ctx.stringList(node, "configureArgs", where),
                ctx.stringList(node, "buildArgs", where));
    }

    /** One job, checked, including that its request fits the protocol; {@code where} names it until its id is known. */
    private JobSpec readJob(Context ctx, Defaults d, JsonNode node, String where) throws ManifestException {
        JobSpec spec = readJobFields(ctx, d, node, where);
        requireFitsTheProtocol(ctx, spec);
        return spec;
    }

    private JobSpec readJobFields(Context ctx, Defaults d, JsonNode node, String where) throws ManifestException {
        if (node == null || !node.isObject()) {
            throw ctx.error(where + " must be an object with \"id\" and \"kind\"");
        }
        String id = ctx.string(node, "id", where, true);
        if (id.equals(".") || id.equals("..")) {
            throw ctx.error(where + " has the id " + quote(id) + ", which is not allowed: an id names the job's build"
                    + " folder and log, so it must not be '.' or '..'");
        }
        if (!JobSpec.isValidId(id)) {
            throw ctx.error(where + " has the id " + quote(id)
                    + ", which is not allowed: use 1 to 128 characters of A-Z a-z 0-9 . _ -");
        }
        where = "job '" + id + "'";
        String kind = ctx.string(node, "kind", where, true);
        Map<String, String> env = merge(d.env(), ctx.stringMap(node, "env", where));
        Long timeoutMs = ctx.timeout(node, where);
        if (timeoutMs == null) {
            timeoutMs = d.timeoutMs();
        }
        List<String> artifacts = ctx.stringList(node, "artifacts", where);
        try {
            switch (kind) {
                case "cmake": {
                    String source = ctx.string(node, "sourceDir", where, true);
                    Path sourceDir = ctx.resolve(source);
                    if (!Files.isDirectory(sourceDir)) {
                        throw ctx.error(where + ": sourceDir " + printable(sourceDir.toString(), 300) + " is not a folder; fix the path"
                                + " (relative paths start at " + ctx.baseName + ")");
                    }
                    if (!Files.isRegularFile(sourceDir.resolve("CMakeLists.txt"))) {
                        throw ctx.error(where + ": sourceDir " + printable(sourceDir.toString(), 300) + " has no CMakeLists.txt; point it at"
                                + " the project's top folder");
                    }
                    String build = ctx.string(node, "buildDir", where, false);
                    Path buildDir = build != null ? ctx.resolve(build) : ctx.resolve(d.buildRoot()).resolve(id);
                    String generator = ctx.string(node, "generator", where, false);
                    String buildType = ctx.string(node, "buildType", where, false);
                    List<String> configureArgs = concat(d.configureArgs(), ctx.stringList(node, "configureArgs", where));
                    List<String> buildArgs = concat(d.buildArgs(), ctx.stringList(node, "buildArgs", where));
                    return new CmakeJob(id, sourceDir.toString().intern(), buildDir.normalize().toString(),
                            intern(generator != null ? generator : d.generator()),
                            intern(buildType != null ? buildType : d.buildType()),
                            internKeys(merge(d.defines(), ctx.stringMap(node, "defines", where))),
                            intern(configureArgs), intern(buildArgs), intern(ctx.stringList(node, "targets", where)),
                            internKeys(env), timeoutMs, artifacts);
                }
                case "command": {
                    List<String> argv = ctx.stringList(node, "argv", where);
                    if (argv.isEmpty()) {
                        throw ctx.error(where + ": \"argv\" is missing or empty; give the program and its"
                                + " arguments as a JSON array of strings (no shell)");
                    }
                    if (argv.get(0).isBlank()) {
                        throw ctx.error(where + ": \"argv\"[0] is blank; it must name the program to run");
                    }
                    String cwd = ctx.string(node, "cwd", where, false);
                    Path cwdPath = cwd == null ? ctx.base : ctx.resolve(cwd);
                    if (!Files.isDirectory(cwdPath)) {
                        throw ctx.error(where + ": cwd " + printable(cwdPath.toString(), 300) + " is not a folder; fix the path");
                    }
                    List<String> inputs = node.hasNonNull("inputs") ? ctx.stringList(node, "inputs", where) : null;
                    return new CommandJob(id, intern(argv), cwdPath.toString().intern(), internKeys(env), timeoutMs,
                            artifacts, inputs == null ? null : intern(inputs));
                }
                default:
                    throw ctx.error(where + " has the unknown kind " + quote(kind) + "; use \"cmake\" or \"command\"");
            }
        } catch (IllegalArgumentException e) {
            throw ctx.error(e.getMessage());
        }
    }

    /*
     * A service reads each job on its own, so the strings that most jobs repeat (their folders, compiler and flags,
     * variable names) would be a copy per job: 100,000 jobs through one serve kept about 20 MiB of such copies.
     * Interned, they are one each. Strings that are usually unique (ids, a job's build folder, variable values) are
     * not interned, as that would only add to the JVM's string table.
     */
    private static String intern(String s) {
        return s == null ? null : s.intern();
    }

    private static List<String> intern(List<String> list) {
        List<String> out = new ArrayList<>(list.size());
        list.forEach(s -> out.add(s.intern()));
        return out;
    }

    private static Map<String, String> internKeys(Map<String, String> map) {
        Map<String, String> out = new LinkedHashMap<>();
        map.forEach((k, v) -> out.put(k.intern(), v));
        return out;
    }

    private static Map<String, String> merge(Map<String, String> base, Map<String, String> over) {
        Map<String, String> out = new LinkedHashMap<>(base);
        out.putAll(over);
        return out;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    /**
     * Where relative paths start, how errors begin (the manifest's name, or nothing for a job read alone), and
     * helpers that name the field in their errors.
     */
    private static final class Context {
        final Path base;
        final String prefix;
        final String baseName;

        Context(Path base, String prefix) {
            this.base = base;
            this.prefix = prefix;
            this.baseName = prefix.isEmpty() ? base.toString() : "the manifest's folder";
        }

        ManifestException error(String message) {
            return new ManifestException(prefix + message);
        }

        Path resolve(String path) {
            return base.resolve(path).normalize();
        }

        String string(JsonNode node, String field, String where, boolean required) throws ManifestException {
            JsonNode v = node.get(field);
            if (v == null || v.isNull()) {
                if (required) {
                    throw error(where + ": \"" + field + "\" is missing; add it");
                }
                return null;
            }
            if (!v.isTextual()) {
                throw error(where + ": \"" + field + "\" must be a string, not " + show(v) + quoteHint(v));
            }
            if (v.textValue().isBlank()) {
                throw error(where + ": \"" + field + "\" is empty");
            }
            return safe(v.textValue(), where + ": \"" + field + "\"");
        }

        List<String> stringList(JsonNode node, String field, String where) throws ManifestException {
            JsonNode v = node.get(field);
            if (v == null || v.isNull()) {
                return List.of();
            }
            if (!v.isArray()) {
                throw error(where + ": \"" + field + "\" must be an array of strings such as [\"a\", \"b\"], not " + show(v));
            }
            List<String> out = new ArrayList<>();
            for (int i = 0; i < v.size(); i++) {
                if (!v.get(i).isTextual()) {
                    throw error(where + ": \"" + field + "\"[" + i + "] must be a string, not " + show(v.get(i))
                            + quoteHint(v.get(i)));
                }
                out.add(safe(v.get(i).textValue(), where + ": \"" + field + "\"[" + i + "]"));
            }
            return out;
        }

        Map<String, String> stringMap(JsonNode node, String field, String where) throws ManifestException {
            JsonNode v = node.get(field);
            if (v == null || v.isNull()) {
                return Map.of();
            }
            if (!v.isObject()) {
                throw error(where + ": \"" + field + "\" must be an object of names to values");
            }
            Map<String, String> out = new LinkedHashMap<>();
            Iterator<Map.Entry<String, JsonNode>> it = v.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode value = e.getValue();
                String text;
                if (value.isTextual()) {
                    text = value.textValue();
                } else if (value.isBoolean()) {
                    text = value.booleanValue() ? "ON" : "OFF";
                } else if (value.isNumber()) {
                    text = value.asText();
                } else {
                    throw error(where + ": \"" + field + "\"." + printable(e.getKey(), 80)
                            + " must be a string, number or boolean, not " + show(value));
                }
                if (e.getKey().isBlank() || e.getKey().contains("=")) {
                    throw error(where + ": \"" + field + "\" has the name " + quote(e.getKey())
                            + ", which is empty or contains '='; write \"NAME\": \"value\"");
                }
                out.put(safe(e.getKey(), where + ": \"" + field + "\""),
                        safe(text, where + ": \"" + field + "\"." + printable(e.getKey(), 80)));
            }
            return out;
        }

        /** For a number or a boolean where text belongs: how to write it as text. */
        static String quoteHint(JsonNode v) {
            return v.isNumber() || v.isBoolean() ? "; put it in double quotes: " + quote(v.asText(), 40) : "";
        }

        /**
         * {@code text} when a process can take it: a NUL cannot be passed in an argument or the environment, and an
         * unpaired surrogate (from a JSON escape such as \\ud800) would reach the process as '?'.
         */
        String safe(String text, String what) throws ManifestException {
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == 0) {
                    throw error(what + " holds a NUL character (\\u0000), which no program can be given; remove it");
                }
                if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                    i++;
                } else if (Character.isSurrogate(c)) {
                    throw error(what + " holds an unpaired surrogate (" + String.format("\\u%04x", (int) c)
                            + "), which is not text; fix the \\u escape");
                }
            }
            return text;
        }

        Long timeout(JsonNode node, String where) throws ManifestException {
            JsonNode v = node.get("timeout");
            if (v == null || v.isNull()) {
                return null;
            }
            if (!v.isTextual() && !v.isNumber()) {
                throw error(where + ": \"timeout\" must be a duration such as \"90s\", \"10m\" or \"1h30m\", not "
                        + show(v));
            }
            try {
                return Durations.parse(v.asText()).toMillis();
            } catch (IllegalArgumentException e) {
                throw error(where + ": \"timeout\" " + e.getMessage());
            }
        }
    }
}
