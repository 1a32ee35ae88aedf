package org.archpool.worker.exec;

import java.util.Optional;
import java.util.Set;

/**
 * Linux signal numbers and names, and what a process's exit status says about them.
 *
 * <p>Java reports a process that a signal ended as exit status {@code 128 + n}, the shell's convention, and
 * cannot tell that from a program that called {@code exit(128 + n)} itself. Such a program is nearly
 * always a shell or wrapper passing on the status of a child that signal {@code n} ended, so reading the
 * status as that signal names the right cause; the wording of messages says so. Statuses of signals that
 * cannot end a process (their default action is to ignore or stop, e.g. {@code SIGCHLD}, {@code SIGSTOP})
 * are ordinary exits.
 */
public final class Signals {

    private static final String[] NAMES = {
        null,
        "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
        "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT",
        "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
        "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS",
    };

    /** Signals whose default action ignores them or stops the process: they never end one. */
    private static final Set<Integer> CANNOT_END_A_PROCESS = Set.of(17, 18, 19, 20, 21, 22, 23, 28);

    /** The first status that stands for a signal: 128 + 1. */
    static final int SIGNAL_STATUS_BASE = 128;

    private Signals() {
    }

    /** The name of Linux signal {@code number} ({@code 11} → {@code SIGSEGV}), or empty for another number. */
    public static Optional<String> name(int number) {
        return number >= 1 && number < NAMES.length ? Optional.of(NAMES[number]) : Optional.empty();
    }

    /**
     * The signal an exit status stands for: {@code 139} → {@code SIGSEGV}. Empty for a status of 128 or
     * less, above 128 + 31, or of a signal that cannot end a process.
     */
    public static Optional<String> fromExitStatus(int status) {
        int number = status - SIGNAL_STATUS_BASE;
        if (CANNOT_END_A_PROCESS.contains(number)) {
            return Optional.empty();
        }
        return name(number);
    }
}
