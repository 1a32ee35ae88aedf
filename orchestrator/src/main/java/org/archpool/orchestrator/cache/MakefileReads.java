package org.archpool.orchestrator.cache;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.archpool.protocol.CmakeJob;

/**
 * The files a {@code cmake} job's build read, from the records CMake's Unix Makefiles generator keeps in the build
 * folder once it has built:
 * <ul>
 *   <li>each object's headers: the compiler's own depfile ({@code CMakeFiles/<target>.dir/<source>.o.d}, which
 *   nvcc writes with the host and device headers of a {@code .cu}) that {@code DependInfo.cmake} names, and the
 *   dependencies make consolidates into {@code compiler_depend.make} (and {@code depend.make}, CMake's own
 *   scanner's) — every object that was built must be listed by one of them ({@link Depfile});</li>
 *   <li>the configure's inputs: {@code CMAKE_MAKEFILE_DEPENDS} of {@code CMakeFiles/Makefile.cmake} (the
 *   {@code CMakeLists.txt}, the {@code .cmake} files it included, package configurations);</li>
 *   <li>the sources and the libraries a target links by path: the absolute prerequisites of the rules of its
 *   {@code build.make} that are files.</li>
 * </ul>
 * The targets are those of {@code CMakeFiles/TargetDirectories.txt}, subdirectories' included. Of what they name,
 * the files outside the source and build folders are kept ({@link BuildReads}). Records that are missing or cannot
 * be parsed, or a built object that none lists, leave what the build read unknown, with the reason.
 */
public final class MakefileReads implements BuildReads {

    /** A {@code flags.make} line of a language's include flags: {@code CUDA_INCLUDES = -I/abs}. */
    private static final Pattern INCLUDES = Pattern.compile("[A-Za-z]+_INCLUDES = (.*)");

    /** A rule line of {@code build.make}: not a recipe, comment or assignment, with a {@code :} before any {@code =}. */
    private static final Pattern RULE_LINE = Pattern.compile("^[^\\s#][^=]*:(\\s.*)?$");

    /** Records that are missing, cannot be parsed or leave a built object's headers unlisted. */
    static final class Unreadable extends Exception {
        Unreadable(String message) {
            super(message);
        }
    }

    @Override
    public Found collect(CmakeJob job) {
        Path buildDir = BuildReads.buildDir(job);
        try {
            Set<Path> named = named(buildDir);
            return new Found.Files(BuildReads.outside(named, List.of(Path.of(job.sourceDir()), buildDir)),
                    includeFolders(buildDir));
        } catch (IOException e) {
            return new Found.Unknown("its Makefile records could not be read: " + e);
        } catch (Unreadable e) {
            return new Found.Unknown("its Makefile records do not tell what it read: " + e.getMessage());
        }
    }

    /**
     * The folders the compiles of {@code buildDir} searched for headers: the {@code <LANG>_INCLUDES} of every
     * target's {@code flags.make}, in the order of {@code CMakeFiles/TargetDirectories.txt}.
     */
    static List<Path> includeFolders(Path buildDir) throws IOException {
        List<String> flags = new ArrayList<>();
        for (String line : read(buildDir.resolve("CMakeFiles/TargetDirectories.txt")).split("\n")) {
            Path flagsMake = line.isBlank() ? null : buildDir.resolve(line.strip()).resolve("flags.make");
            if (flagsMake != null && Files.isRegularFile(flagsMake)) {
                for (String setting : read(flagsMake).split("\n")) {
                    Matcher includes = INCLUDES.matcher(setting);
                    if (includes.matches()) {
                        flags.add(includes.group(1));
                    }
                }
            }
        }
        return IncludeFolders.fromFlags(flags, buildDir);
    }

    /** Every file the records of {@code buildDir} name, absolute and normalized (folders and build outputs too). */
    static Set<Path> named(Path buildDir) throws IOException, Unreadable {
        Set<Path> named = new LinkedHashSet<>();
        Path makefileCmake = buildDir.resolve("CMakeFiles/Makefile.cmake");
        for (String input : cmakeList(read(makefileCmake), "CMAKE_MAKEFILE_DEPENDS", makefileCmake)) {
            named.add(buildDir.resolve(input).normalize());
        }
        Path targets = buildDir.resolve("CMakeFiles/TargetDirectories.txt");
        for (String line : read(targets).split("\n")) {
            if (!line.isBlank()) {
                Path targetDir = buildDir.resolve(line.strip()).normalize();
                if (Files.isDirectory(targetDir)) {
                    named.addAll(target(targetDir, buildDir));
                }
            }
        }
        return named;
    }

    /**
     * The files one target's records name; {@code targetDir} is {@code <binary dir>/CMakeFiles/<target>.dir}, and
     * the records' relative names are relative to the top build folder, where make runs (a subdirectory's target
     * names its objects {@code sub/CMakeFiles/<target>.dir/…}).
     */
    static Set<Path> target(Path targetDir, Path buildDir) throws IOException, Unreadable {
        Set<Path> named = new LinkedHashSet<>();
        List<Path> objects = new ArrayList<>();
        List<Path> depfiles = new ArrayList<>();
        Path dependInfo = targetDir.resolve("DependInfo.cmake");
        if (Files.isRegularFile(dependInfo)) {
            String text = read(dependInfo);
            List<String> compiled = cmakeList(text, "CMAKE_DEPENDS_DEPENDENCY_FILES", dependInfo);
            if (compiled.size() % 4 != 0) {
                throw new Unreadable(dependInfo + ": CMAKE_DEPENDS_DEPENDENCY_FILES is not in fours (source,"
                        + " object, compiler, depfile)");
            }
            for (int i = 0; i < compiled.size(); i += 4) {
                named.add(buildDir.resolve(compiled.get(i)).normalize());
                objects.add(buildDir.resolve(compiled.get(i + 1)).normalize());
                depfiles.add(buildDir.resolve(compiled.get(i + 3)).normalize());
            }
            for (String language : cmakeList(text, "CMAKE_DEPENDS_LANGUAGES", dependInfo)) {
                List<String> checked = cmakeList(text, "CMAKE_DEPENDS_CHECK_" + language, dependInfo);
                for (int i = 0; i + 1 < checked.size(); i += 2) {
                    named.add(buildDir.resolve(checked.get(i)).normalize());
                    objects.add(buildDir.resolve(checked.get(i + 1)).normalize());
                }
            }
        }
        depfiles.add(targetDir.resolve("compiler_depend.make"));
        depfiles.add(targetDir.resolve("depend.make"));
        Set<Path> listed = new HashSet<>();
        for (Path depfile : depfiles) {
            if (Files.isRegularFile(depfile)) {
                Depfile parsed = parse(depfile, read(depfile));
                for (Depfile.Rule rule : parsed.rules()) {
                    rule.targets().forEach(t -> listed.add(buildDir.resolve(t).normalize()));
                    rule.prerequisites().forEach(p -> named.add(buildDir.resolve(p).normalize()));
                }
            }
        }
        for (Path object : objects) {
            if (Files.exists(object) && !listed.contains(object)) {
                throw new Unreadable("no depfile lists the headers of " + object);
            }
        }
        Path buildMake = targetDir.resolve("build.make");
        if (Files.isRegularFile(buildMake)) {
            StringBuilder rules = new StringBuilder();
            for (String line : read(buildMake).split("\n")) {
                if (RULE_LINE.matcher(line).matches()) {
                    rules.append(line).append('\n');
                }
            }
            for (String prerequisite : parse(buildMake, rules.toString()).prerequisites()) {
                Path path = Path.of(prerequisite);
                if (path.isAbsolute() && Files.isRegularFile(path)) {
                    named.add(path.normalize());
                }
            }
        }
        return named;
    }

    /**
     * The quoted items of {@code set(NAME "a" "b" …)} in a file CMake generated ({@code \} escapes the character
     * after it); none when it does not set {@code name}.
     */
    static List<String> cmakeList(String text, String name, Path file) throws Unreadable {
        Matcher set = Pattern.compile("(?m)^\\s*set\\(" + Pattern.quote(name) + "(\\s|\\))").matcher(text);
        List<String> items = new ArrayList<>();
        if (!set.find()) {
            return items;
        }
        int i = set.end(1) - (set.group(1).equals(")") ? 1 : 0);
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == ')') {
                return items;
            } else if (c == '"') {
                StringBuilder item = new StringBuilder();
                i++;
                while (i < text.length() && text.charAt(i) != '"') {
                    if (text.charAt(i) == '\\' && i + 1 < text.length()) {
                        i++;
                    }
                    item.append(text.charAt(i++));
                }
                if (i >= text.length()) {
                    break;
                }
                items.add(item.toString());
                i++;
            } else if (Character.isWhitespace(c)) {
                i++;
            } else {
                throw new Unreadable(file + ": an unquoted item in set(" + name + " …) at offset " + i);
            }
        }
        throw new Unreadable(file + ": set(" + name + " …) is not closed");
    }

    private static Depfile parse(Path file, String text) throws Unreadable {
        try {
            return Depfile.parse(text);
        } catch (Depfile.Malformed e) {
            throw new Unreadable(file + ": " + e.getMessage());
        }
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }
}
