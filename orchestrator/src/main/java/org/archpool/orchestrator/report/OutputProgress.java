package org.archpool.orchestrator.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which of a build's requested outputs are on disk so far, safe to read from another thread: the interrupt hook
 * reads it to name the outputs it did not wait for. Each output is named as the user asked for it, e.g.
 * {@code --trace out/trace.json}.
 */
public final class OutputProgress {

    /** Where one output stands. */
    public enum State { PENDING, WRITTEN, FAILED }

    private final Map<String, State> states = new LinkedHashMap<>();
    /** The temporary file of the output being written, or null. */
    private Path writing;
    /** Whether the process is ending: no output may start any more. */
    private boolean abandoned;

    OutputProgress(List<String> requested) {
        requested.forEach(name -> states.put(name, State.PENDING));
    }

    /** The name of {@code what} (the report, or its option) written to {@code file}. */
    static String name(String what, Path file) {
        return what + " " + file;
    }

    synchronized void set(String name, State state) {
        states.put(name, state);
        writing = null;
    }

    /** An output's temporary file, which becomes the output when it is complete. */
    synchronized void writing(Path temp) throws IOException {
        if (abandoned) {
            throw new IOException("the build was stopped before it was written");
        }
        writing = temp;
    }

    /**
     * The process ends before the output being written is complete: its temporary file is removed, so that
     * nothing half-written stays beside the target, and no other output starts.
     *
     * @return what could not be removed, in words, or null
     */
    public synchronized String abandon() {
        abandoned = true;
        Path temp = writing;
        writing = null;
        if (temp == null) {
            return null;
        }
        try {
            Files.deleteIfExists(temp);
            return null;
        } catch (IOException e) {
            return "could not remove the unfinished " + temp + ": " + e.getMessage();
        }
    }

    /** The outputs written, in the order they were requested. */
    public synchronized List<String> written() {
        return in(State.WRITTEN);
    }

    /** The outputs not written (yet, or because they failed), in the order they were requested. */
    public synchronized List<String> notWritten() {
        List<String> names = new ArrayList<>(in(State.PENDING));
        names.addAll(in(State.FAILED));
        return names;
    }

    private List<String> in(State state) {
        return states.entrySet().stream().filter(e -> e.getValue() == state).map(Map.Entry::getKey).toList();
    }
}
