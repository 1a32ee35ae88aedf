package org.archpool.orchestrator.cache;

import java.util.ArrayList;
import java.util.List;

/**
 * The rules of a Make-syntax dependency file, as compilers write them ({@code gcc -MD}, {@code nvcc -MD}) and as
 * CMake's Makefile generator consolidates them ({@code compiler_depend.make}, {@code depend.make}): each rule is
 * {@code target [target…] : prerequisite…}, a backslash at the end of a line continues it, {@code \ } is a space and
 * {@code \#} a {@code #} in a name, {@code $$} is a {@code $}, and a line that starts with {@code #} is a comment.
 * Rules without prerequisites ({@code header.h:}, written so that a deleted header is no error) are kept, with none.
 *
 * @param rules in the order they are written
 */
public record Depfile(List<Rule> rules) {

    /**
     * One rule.
     *
     * @param targets       what it makes, as written (relative names are relative to where make ran)
     * @param prerequisites what it was made from, as written
     */
    public record Rule(List<String> targets, List<String> prerequisites) {
        public Rule {
            targets = List.copyOf(targets);
            prerequisites = List.copyOf(prerequisites);
        }
    }

    /** A dependency file that is not Make's syntax. */
    public static final class Malformed extends Exception {
        public Malformed(String message) {
            super(message);
        }
    }

    public Depfile {
        rules = List.copyOf(rules);
    }

    /** Every prerequisite of every rule, in order, repeats included. */
    public List<String> prerequisites() {
        List<String> all = new ArrayList<>();
        rules.forEach(r -> all.addAll(r.prerequisites()));
        return all;
    }

    /** Every target of every rule, in order. */
    public List<String> targets() {
        List<String> all = new ArrayList<>();
        rules.forEach(r -> all.addAll(r.targets()));
        return all;
    }

    /** Parses {@code text}; a line with words but no {@code :} after its targets is malformed. */
    public static Depfile parse(String text) throws Malformed {
        List<Rule> rules = new ArrayList<>();
        StringBuilder logical = new StringBuilder();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (logical.isEmpty() && line.startsWith("#")) {
                continue;
            }
            if (endsWithContinuation(line)) {
                logical.append(line, 0, line.length() - 1).append(' ');
                if (i < lines.length - 1) {
                    continue;
                }
            } else {
                logical.append(line);
            }
            if (!logical.toString().isBlank()) {
                rules.add(rule(logical.toString(), i + 1));
            }
            logical.setLength(0);
        }
        return new Depfile(rules);
    }

    /** Whether {@code line} ends in a backslash that is not itself escaped. */
    private static boolean endsWithContinuation(String line) {
        int backslashes = 0;
        for (int i = line.length() - 1; i >= 0 && line.charAt(i) == '\\'; i--) {
            backslashes++;
        }
        return backslashes % 2 == 1;
    }

    /** One logical line: its words up to the first unescaped {@code :} that ends a word are targets. */
    private static Rule rule(String line, int lineNumber) throws Malformed {
        List<String> targets = new ArrayList<>();
        List<String> prerequisites = new ArrayList<>();
        List<String> into = targets;
        StringBuilder word = new StringBuilder();
        int n = line.length();
        for (int i = 0; i < n; i++) {
            char c = line.charAt(i);
            if (c == '\\' && i + 1 < n && (line.charAt(i + 1) == ' ' || line.charAt(i + 1) == '#'
                    || line.charAt(i + 1) == '\\' || line.charAt(i + 1) == ':')) {
                word.append(line.charAt(++i));
            } else if (c == '$' && i + 1 < n && line.charAt(i + 1) == '$') {
                word.append('$');
                i++;
            } else if (c == ':' && into == targets && (i + 1 == n || Character.isWhitespace(line.charAt(i + 1)))) {
                if (!word.isEmpty()) {
                    targets.add(word.toString());
                    word.setLength(0);
                }
                into = prerequisites;
            } else if (Character.isWhitespace(c)) {
                if (!word.isEmpty()) {
                    into.add(word.toString());
                    word.setLength(0);
                }
            } else {
                word.append(c);
            }
        }
        if (!word.isEmpty()) {
            into.add(word.toString());
        }
        if (into == targets || targets.isEmpty()) {
            throw new Malformed("line " + lineNumber + " is no rule (target: prerequisites): " + line.strip());
        }
        return new Rule(targets, prerequisites);
    }
}
