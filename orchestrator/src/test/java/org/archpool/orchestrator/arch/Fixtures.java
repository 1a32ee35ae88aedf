package org.archpool.orchestrator.arch;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Captured tool outputs under {@code src/test/resources/fixtures}, read from the class path. */
final class Fixtures {

    private Fixtures() {
    }

    /**
     * The fixture at {@code fixtures/<path>}, byte for byte (as UTF-8). Fails when the fixture, or the
     * {@code .source.txt} note that says where a captured output came from, is missing.
     */
    static String read(String path) {
        String note = path.replaceFirst("\\.txt$", ".source.txt");
        if (!path.endsWith(".txt")
                || !path.endsWith(".source.txt") && Fixtures.class.getResource("/fixtures/" + note) == null) {
            throw new IllegalStateException("fixture " + path + " has no source note " + note);
        }
        try (InputStream in = Fixtures.class.getResourceAsStream("/fixtures/" + path)) {
            if (in == null) {
                throw new IllegalStateException("no fixture " + path + " on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One command of a console transcript and what it printed. */
    record Step(String command, String output) {
    }

    /**
     * Splits a console transcript into commands and their output: a line matching {@code prompt} (whose group 1
     * is the command) starts a step; the lines up to the next prompt are its output.
     */
    static List<Step> transcript(String text, Pattern prompt) {
        List<Step> steps = new ArrayList<>();
        String command = null;
        StringBuilder output = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            Matcher m = prompt.matcher(line);
            if (m.matches()) {
                if (command != null) {
                    steps.add(new Step(command, output.toString()));
                }
                command = m.group(1);
                output.setLength(0);
            } else if (command != null) {
                output.append(line).append('\n');
            }
        }
        if (command != null) {
            steps.add(new Step(command, output.toString()));
        }
        return steps;
    }

    /** The output of the one step whose command is {@code command}. */
    static String outputOf(List<Step> steps, String command) {
        List<String> outputs = steps.stream().filter(s -> s.command().equals(command)).map(Step::output).toList();
        if (outputs.size() != 1) {
            throw new IllegalStateException(outputs.size() + " steps run '" + command + "' in " + steps);
        }
        return outputs.get(0);
    }
}
