package org.archpool.orchestrator.output;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The files of a build's log folder, named so that no two can ever be one file. A job's log is {@code <id>.log},
 * a retry's {@code <id>@attempt<n>.log}; the coordinator's own log is {@value #COORDINATOR_LOG} and the folder's
 * lock {@value #LOCK_FILE}; the workers' stderr files are in {@value #WORKERS}/. A job id is 1 to 128 of
 * {@code A-Z a-z 0-9 . _ -}, so it never holds {@code @} or {@code /}: no job log can be an attempt log of another
 * job, the coordinator's log, the lock, or a worker's file, whatever the ids.
 *
 * @param folder the log folder, absolute
 */
public record LogLayout(Path folder) {

    /** The coordinator's log. */
    public static final String COORDINATOR_LOG = "@archpool.log";
    /** The lock file that keeps a second build out of the folder ({@link LogFolderLock}). */
    public static final String LOCK_FILE = "@archpool.lock";
    /** The subfolder for the workers' stderr files. */
    public static final String WORKERS = "workers";

    private static final Pattern JOB_LOG = Pattern.compile("(.+?)(?:@attempt([1-9][0-9]*))?\\.log");

    public LogLayout {
        Objects.requireNonNull(folder, "folder");
    }

    /** The log of a job's {@code attempt} (counted from 1): {@code <id>.log}, then {@code <id>@attempt<n>.log}. */
    public Path jobLog(String jobId, int attempt) {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt counts from 1: " + attempt);
        }
        return folder.resolve(attempt == 1 ? jobId + ".log" : jobId + "@attempt" + attempt + ".log");
    }

    public Path coordinatorLog() {
        return folder.resolve(COORDINATOR_LOG);
    }

    public Path lockFile() {
        return folder.resolve(LOCK_FILE);
    }

    public Path workerLogs() {
        return folder.resolve(WORKERS);
    }

    /**
     * What the build writes under {@code name} directly in the folder, in words ("the log of job 'a'", "the
     * coordinator's log"), or null when it writes nothing there.
     *
     * @param jobIds   the build's job ids
     * @param attempts the most attempts a job may have
     */
    public static String owner(String name, Set<String> jobIds, int attempts) {
        if (name.equals(COORDINATOR_LOG)) {
            return "the coordinator's log";
        }
        if (name.equals(LOCK_FILE)) {
            return "the log folder's lock";
        }
        if (name.equals(WORKERS)) {
            return "the workers' stderr folder";
        }
        Matcher m = JOB_LOG.matcher(name);
        if (!m.matches() || !jobIds.contains(m.group(1))) {
            return null;
        }
        if (m.group(2) == null) {
            return "the log of job '" + m.group(1) + "'";
        }
        int attempt;
        try {
            attempt = Integer.parseInt(m.group(2));
        } catch (NumberFormatException e) {
            return null;
        }
        return attempt >= 2 && attempt <= attempts ? "the log of attempt " + attempt + " of job '" + m.group(1) + "'" : null;
    }
}
