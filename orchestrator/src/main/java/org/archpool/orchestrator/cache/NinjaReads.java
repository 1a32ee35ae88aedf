package org.archpool.orchestrator.cache;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.archpool.orchestrator.tool.ToolOutput;
import org.archpool.orchestrator.tool.ToolRunner;
import org.archpool.protocol.CmakeJob;

/**
 * The files a {@code cmake} job's build read that its key does not cover, from the build's own records once it has
 * built: Ninja's deps log ({@code ninja -C BUILD -t deps}: the headers each object was compiled from, as the compiler
 * reported them) and the inputs of the edges of {@code build.ninja} ({@link NinjaManifest}). Of those, every file
 * outside the job's {@code sourceDir} (whose files the key holds) and outside its build folder (what the build
 * wrote) is kept ({@link BuildReads}). A {@code ninja} that cannot be run and records that cannot be read leave
 * what the build read unknown, with the reason.
 */
public final class NinjaReads implements BuildReads {

    /** How long {@code ninja -t deps} may take; it reads one file. */
    static final Duration DEPS_TIMEOUT = Duration.ofMinutes(2);

    /** The line that heads one output's dependencies in {@code ninja -t deps}. */
    private static final Pattern DEPS_HEAD = Pattern.compile(".*: #deps \\d+, deps mtime \\d+ \\((VALID|STALE)\\)");

    private final ToolRunner tools;

    /** @param tools runs {@code ninja -t deps} */
    public NinjaReads(ToolRunner tools) {
        this.tools = tools;
    }

    @Override
    public Found collect(CmakeJob job) {
        Path buildDir = BuildReads.buildDir(job);
        Path manifest = buildDir.resolve("build.ninja");
        if (!Files.isRegularFile(manifest)) {
            return new Found.Unknown("what the build read outside its source folder is known only from Ninja's"
                    + " records, and its build folder has no build.ninja (generator " + job.generator() + ")");
        }
        Set<Path> named = new LinkedHashSet<>();
        NinjaManifest manifests;
        try {
            manifests = manifests(manifest, buildDir);
        } catch (IOException e) {
            return new Found.Unknown("its build.ninja could not be read: " + e.getMessage());
        } catch (NinjaManifest.Malformed e) {
            return new Found.Unknown("its build.ninja could not be parsed: " + e.getMessage());
        }
        for (String input : manifests.inputs()) {
            named.add(buildDir.resolve(input).normalize());
        }
        ToolOutput deps = tools.run(List.of("ninja", "-C", buildDir.toString(), "-t", "deps"), DEPS_TIMEOUT);
        if (deps.status() != ToolOutput.Status.EXITED || deps.exitCode() != 0) {
            return new Found.Unknown("ninja -t deps did not list the headers it read ("
                    + (deps.status() == ToolOutput.Status.EXITED ? "exit " + deps.exitCode() + ": "
                    + deps.stderr().strip() : deps.problem()) + ")");
        }
        try {
            named.addAll(depsLog(deps.stdout(), buildDir));
        } catch (NinjaManifest.Malformed e) {
            return new Found.Unknown("the output of ninja -t deps could not be parsed: " + e.getMessage());
        }
        return new Found.Files(BuildReads.outside(named, List.of(Path.of(job.sourceDir()), buildDir)),
                IncludeFolders.fromFlags(manifests.includeFlags(), buildDir));
    }

    /**
     * {@code manifest} and every manifest it includes, read as one: their inputs and include flags, as they are
     * written.
     */
    private static NinjaManifest manifests(Path manifest, Path buildDir) throws IOException, NinjaManifest.Malformed {
        List<String> inputs = new ArrayList<>();
        List<String> includeFlags = new ArrayList<>();
        Deque<Path> toRead = new ArrayDeque<>(List.of(manifest));
        Set<Path> read = new HashSet<>();
        while (!toRead.isEmpty()) {
            Path next = toRead.pop();
            if (read.add(next)) {
                NinjaManifest m = NinjaManifest.parse(Files.readString(next, StandardCharsets.UTF_8));
                inputs.addAll(m.inputs());
                includeFlags.addAll(m.includeFlags());
                m.includes().forEach(include -> toRead.add(buildDir.resolve(include).normalize()));
            }
        }
        return new NinjaManifest(inputs, read.stream().map(Path::toString).toList(), includeFlags);
    }

    /**
     * The files {@code ninja -t deps} lists, resolved against the build folder: a head line per output
     * ({@code out.o: #deps 3, deps mtime 1 (VALID)}) then its dependencies, each on a line of its own indented by
     * four spaces.
     */
    static Set<Path> depsLog(String output, Path buildDir) throws NinjaManifest.Malformed {
        Set<Path> files = new LinkedHashSet<>();
        for (String line : output.split("\n")) {
            if (line.startsWith("    ")) {
                files.add(buildDir.resolve(line.substring(4)).normalize());
            } else if (!line.isBlank() && !DEPS_HEAD.matcher(line).matches()
                    && !line.startsWith("ninja: Entering directory")) {
                throw new NinjaManifest.Malformed("an unexpected line: " + line);
            }
        }
        return files;
    }
}
