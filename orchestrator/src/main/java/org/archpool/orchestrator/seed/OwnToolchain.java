package org.archpool.orchestrator.seed;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a CMake project picks its own toolchain before its first {@code project()}: a compiler
 * ({@code set(CMAKE_CXX_COMPILER …)}), a toolchain file (vcpkg's {@code set(CMAKE_TOOLCHAIN_FILE …)}), a sysroot or
 * target system, the compiler variables of the environment ({@code set(ENV{CC} …)}), or an {@code include()} that
 * may do any of these. A seed carries another configure's compiler identification, which CMake would then take
 * instead of the project's choice: such a project is never seeded. Read from the text of its top
 * {@code CMakeLists.txt}, comments left out; a file that cannot be read counts as choosing (no seed is never wrong).
 */
final class OwnToolchain {

    private static final Pattern PROJECT = Pattern.compile("(?im)^\\s*project\\s*\\(");
    private static final Pattern CHOOSES = Pattern.compile("(?i)\\b(CMAKE_TOOLCHAIN_FILE|CMAKE_\\w*COMPILER\\w*"
            + "|CMAKE_SYSROOT|CMAKE_SYSTEM_NAME|CMAKE_SYSTEM_PROCESSOR|CMAKE_GENERATOR_PLATFORM"
            + "|CMAKE_GENERATOR_TOOLSET|CMAKE_PROJECT_\\w*INCLUDE\\w*|ENV\\{(CC|CXX|CUDACXX|HIPCXX|CUDAHOSTCXX)\\}"
            + "|include\\s*\\()");
    private static final Pattern BRACKET_COMMENT = Pattern.compile("#\\[(=*)\\[.*?\\]\\1\\]", Pattern.DOTALL);
    private static final Pattern LINE_COMMENT = Pattern.compile("#[^\\n]*");

    private OwnToolchain() {
    }

    /** What the project in {@code sourceDir} sets before its first {@code project()}, if it picks its toolchain. */
    static Optional<String> chosenIn(Path sourceDir) {
        String text;
        try {
            text = new String(Files.readAllBytes(sourceDir.resolve("CMakeLists.txt")), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            return Optional.of("its CMakeLists.txt could not be read (" + e.getMessage() + ")");
        }
        text = LINE_COMMENT.matcher(BRACKET_COMMENT.matcher(text).replaceAll("")).replaceAll("");
        Matcher project = PROJECT.matcher(text);
        String before = project.find() ? text.substring(0, project.start()) : text;
        Matcher chooses = CHOOSES.matcher(before);
        return chooses.find() ? Optional.of("its CMakeLists.txt names " + chooses.group(1).strip()
                + " before project(), which may pick its own toolchain") : Optional.empty();
    }
}
