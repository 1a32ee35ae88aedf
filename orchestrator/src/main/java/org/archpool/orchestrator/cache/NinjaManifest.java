package org.archpool.orchestrator.cache;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a Ninja manifest ({@code build.ninja} as CMake writes it) says a build reads: the explicit and implicit inputs
 * of every {@code build} edge (the sources of compile edges, the objects and the libraries named by absolute path of
 * link edges, the {@code CMakeLists.txt}, {@code .cmake} files and package configurations of the {@code RERUN_CMAKE}
 * edge), not its order-only ones or validations, and the files it {@code include}s or {@code subninja}s. Paths are
 * as written, relative to the build folder or absolute, with Ninja's escapes ({@code $ }, {@code $:}, {@code $$},
 * {@code $} at the end of a line) undone and the manifest's top-level variables expanded.
 *
 * @param inputs       every edge's explicit and implicit inputs, in the order they appear
 * @param includes     the manifests it includes
 * @param includeFlags the value of every edge's {@code INCLUDES} binding (CMake's include flags of a compile,
 *                     {@code -I/abs/include -isystem /other}), in the order they appear
 */
public record NinjaManifest(List<String> inputs, List<String> includes, List<String> includeFlags) {

    /** A manifest that cannot be read as one: the build's inputs are then unknown. */
    public static final class Malformed extends Exception {
        Malformed(String message) {
            super(message);
        }
    }

    private static final Pattern BINDING = Pattern.compile("([A-Za-z0-9_.-]+)\\s*=\\s*(.*)");
    /** An edge's binding of its include flags: indented under its {@code build} line. */
    private static final Pattern EDGE_INCLUDES = Pattern.compile("\\s+INCLUDES\\s*=\\s*(.*)");
    private static final Pattern VARIABLE = Pattern.compile("\\{([A-Za-z0-9_.-]+)}|([A-Za-z0-9_-]+)");

    /** A separator of an edge: {@code :}, {@code |}, {@code ||} and {@code |@}. */
    private enum Mark { COLON, IMPLICIT, ORDER_ONLY, VALIDATION }

    public NinjaManifest {
        inputs = List.copyOf(inputs);
        includes = List.copyOf(includes);
        includeFlags = List.copyOf(includeFlags);
    }

    /** Reads a manifest's text. */
    public static NinjaManifest parse(String text) throws Malformed {
        List<String> inputs = new ArrayList<>();
        List<String> includes = new ArrayList<>();
        List<String> includeFlags = new ArrayList<>();
        Map<String, String> variables = new HashMap<>();
        for (String line : logicalLines(text)) {
            Matcher edgeBinding = EDGE_INCLUDES.matcher(line);
            if (edgeBinding.matches()) {
                includeFlags.add(path(edgeBinding.group(1), variables));
            } else if (line.startsWith("build ")) {
                edgeInputs(line.substring("build ".length()), variables, inputs);
            } else if (line.startsWith("include ") || line.startsWith("subninja ")) {
                includes.add(path(line.substring(line.indexOf(' ') + 1).strip(), variables));
            } else if (!line.isEmpty() && !Character.isWhitespace(line.charAt(0)) && !line.startsWith("#")) {
                Matcher binding = BINDING.matcher(line);
                if (binding.matches()) {
                    try {
                        variables.put(binding.group(1), path(binding.group(2), variables));
                    } catch (Malformed e) {
                        // a value this reading cannot expand stays unset: a path that names it is malformed then
                        variables.remove(binding.group(1));
                    }
                }
            }
        }
        return new NinjaManifest(inputs, includes, includeFlags);
    }

    /** The lines of the text, a line that ends with an unescaped {@code $} joined with the next. */
    private static List<String> logicalLines(String text) {
        List<String> lines = new ArrayList<>();
        StringBuilder current = null;
        for (String raw : text.split("\n", -1)) {
            String line = current == null ? raw : raw.stripLeading();
            current = current == null ? new StringBuilder(line) : current.append(line);
            int dollars = 0;
            for (int i = line.length() - 1; i >= 0 && line.charAt(i) == '$'; i--) {
                dollars++;
            }
            if (dollars % 2 == 1) {
                current.setLength(current.length() - 1);
            } else {
                lines.add(current.toString());
                current = null;
            }
        }
        if (current != null) {
            lines.add(current.toString());
        }
        return lines;
    }

    /** Adds the explicit and implicit inputs of one edge ({@code outputs: rule inputs | implicit || order-only}). */
    private static void edgeInputs(String edge, Map<String, String> variables, List<String> inputs)
            throws Malformed {
        List<Object> words = words(edge, variables);
        int colon = words.indexOf(Mark.COLON);
        if (colon < 0 || colon + 1 >= words.size() || !(words.get(colon + 1) instanceof String)) {
            throw new Malformed("a build edge without a rule: build " + edge);
        }
        for (Object word : words.subList(colon + 2, words.size())) {
            if (word == Mark.ORDER_ONLY || word == Mark.VALIDATION) {
                return;
            }
            if (word instanceof String path) {
                inputs.add(path);
            } else if (word != Mark.IMPLICIT) {
                throw new Malformed("a second ':' in the build edge: build " + edge);
            }
        }
    }

    /** One path, escapes undone and variables expanded. */
    private static String path(String text, Map<String, String> variables) throws Malformed {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            i = character(text, i, variables, out);
        }
        return out.toString();
    }

    /** The paths and separators of an edge, in order. */
    private static List<Object> words(String edge, Map<String, String> variables) throws Malformed {
        List<Object> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        for (int i = 0; i < edge.length(); i++) {
            char c = edge.charAt(i);
            if (c == ' ' || c == ':' || c == '|') {
                if (!word.isEmpty()) {
                    words.add(word.toString());
                    word.setLength(0);
                }
                if (c == ':') {
                    words.add(Mark.COLON);
                } else if (c == '|') {
                    char next = i + 1 < edge.length() ? edge.charAt(i + 1) : ' ';
                    words.add(next == '|' ? Mark.ORDER_ONLY : next == '@' ? Mark.VALIDATION : Mark.IMPLICIT);
                    i += next == '|' || next == '@' ? 1 : 0;
                }
            } else {
                i = character(edge, i, variables, word);
            }
        }
        if (!word.isEmpty()) {
            words.add(word.toString());
        }
        return words;
    }

    /** Appends the character at {@code i} (an escape or a variable when it is {@code $}); the index it ended at. */
    private static int character(String text, int i, Map<String, String> variables, StringBuilder out)
            throws Malformed {
        char c = text.charAt(i);
        if (c != '$') {
            out.append(c);
            return i;
        }
        if (i + 1 >= text.length()) {
            throw new Malformed("a '$' at the end of: " + text);
        }
        char next = text.charAt(i + 1);
        if (next == ' ' || next == ':' || next == '$') {
            out.append(next);
            return i + 1;
        }
        Matcher variable = VARIABLE.matcher(text).region(i + 1, text.length());
        if (!variable.lookingAt()) {
            throw new Malformed("an escape Ninja does not have ('$" + next + "') in: " + text);
        }
        String name = variable.group(1) != null ? variable.group(1) : variable.group(2);
        String value = variables.get(name);
        if (value == null) {
            throw new Malformed("the variable $" + name + ", which the manifest does not set at its top level, in: "
                    + text);
        }
        out.append(value);
        return variable.end() - 1;
    }
}
