package org.archpool.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

/**
 * Hands the integration classes to the parallel executor longest first, as archpool's own {@code longest-first}
 * order does with jobs: what each took when it last ran is in the file the system property
 * {@code archpool.test.durations} names, which {@link ClassTimeline} keeps; a class it does not know comes first,
 * since it may be long. Without that file (a fresh clone) the order is left as it is. No class's result depends on
 * the order: it only keeps a long class from starting last, alone, while the other threads have nothing left to do.
 */
public final class LongestFirst implements ClassOrderer {

    @Override
    public void orderClasses(ClassOrdererContext context) {
        Map<String, Double> seconds = durationsFile().map(LongestFirst::read).orElse(Map.of());
        if (seconds.isEmpty()) {
            return;
        }
        context.getClassDescriptors().sort(Comparator.comparingDouble((ClassDescriptor d) ->
                -seconds.getOrDefault(d.getTestClass().getSimpleName(), Double.MAX_VALUE)));
    }

    /** The file of each class's seconds, when the property names one. */
    static Optional<Path> durationsFile() {
        return Optional.ofNullable(System.getProperty("archpool.test.durations")).filter(s -> !s.isBlank())
                .map(Path::of);
    }

    /** Each class's seconds, one {@code CLASS<TAB>SECONDS} per line; empty when there is no such file yet. */
    static Map<String, Double> read(Path file) {
        Map<String, Double> seconds = new HashMap<>();
        if (!Files.isRegularFile(file)) {
            return seconds;
        }
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String[] f = line.split("\t");
                if (f.length == 2) {
                    seconds.put(f[0], Double.parseDouble(f[1]));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the integration classes' durations " + file, e);
        } catch (NumberFormatException e) {
            // a file cut short by a run that was killed: order as if it were not there
            return new HashMap<>();
        }
        return seconds;
    }
}
