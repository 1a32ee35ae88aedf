package org.archpool.orchestrator.seed;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The entries of a {@code CMakeCache.txt} that describe the toolchain and nothing of the project: every tool CMake
 * found ({@code CMAKE_<NAME>:FILEPATH}: the compilers, their {@code ar} and {@code ranlib}, the binary utilities,
 * the make program) with its {@code -ADVANCED} mark, and the platform's {@code CMAKE_PLATFORM_INFO_INITIALIZED},
 * {@code CMAKE_EXECUTABLE_FORMAT} and {@code CMAKE_UNAME}. With these and the files CMake wrote under
 * {@code CMakeFiles/<version>/}, a new build tree skips compiler identification and ABI detection. No
 * {@code option()}, no {@code CACHE} string, no flags, no install prefix, no architecture: a seeded project gets its
 * own defaults for all of them, as an unseeded one does.
 */
final class ToolchainEntries {

    /** {@code NAME[-ADVANCED]:TYPE=VALUE}, for the names archpool may carry (unquoted {@code CMAKE_…}). */
    private static final Pattern ENTRY = Pattern.compile("(CMAKE_[A-Za-z0-9_]+?)(-ADVANCED)?:([A-Z]+)=(.*)");
    private static final Set<String> PLATFORM = Set.of("CMAKE_PLATFORM_INFO_INITIALIZED", "CMAKE_EXECUTABLE_FORMAT",
            "CMAKE_UNAME");
    /** Given on every configure line that sets it, so never carried. */
    private static final Set<String> FROM_THE_COMMAND_LINE = Set.of("CMAKE_TOOLCHAIN_FILE", "CMAKE_PROJECT_INCLUDE",
            "CMAKE_PROJECT_TOP_LEVEL_INCLUDES");

    private ToolchainEntries() {
    }

    /** The lines of {@code cacheLines} to carry, in their order. */
    static List<String> of(List<String> cacheLines) {
        Map<String, String> tools = new LinkedHashMap<>();
        List<String> kept = new ArrayList<>();
        for (String line : cacheLines) {
            Matcher m = ENTRY.matcher(line);
            if (!m.matches() || m.group(2) != null) {
                continue;
            }
            String name = m.group(1);
            if (m.group(3).equals("FILEPATH") && !FROM_THE_COMMAND_LINE.contains(name)) {
                tools.put(name, m.group(4));
                kept.add(line);
            } else if (PLATFORM.contains(name) && m.group(3).equals("INTERNAL")) {
                kept.add(line);
            }
        }
        for (String line : cacheLines) {
            Matcher m = ENTRY.matcher(line);
            if (m.matches() && m.group(2) != null && tools.containsKey(m.group(1))) {
                kept.add(line);
            }
        }
        return kept;
    }

    /** The value of {@code name} in {@code cacheLines}, whatever its type, or null. */
    static String value(List<String> cacheLines, String name) {
        for (String line : cacheLines) {
            Matcher m = ENTRY.matcher(line);
            if (m.matches() && m.group(2) == null && m.group(1).equals(name)) {
                return m.group(4);
            }
        }
        return null;
    }

    /** The tools among the carried entries: name → the path CMake found. */
    static Map<String, String> tools(List<String> carried) {
        Map<String, String> tools = new LinkedHashMap<>();
        for (String line : carried) {
            Matcher m = ENTRY.matcher(line);
            if (m.matches() && m.group(2) == null && m.group(3).equals("FILEPATH")) {
                tools.put(m.group(1), m.group(4));
            }
        }
        return tools;
    }
}
