package org.archpool.worker.exec;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The shell text of a {@link StepHost}: the host's own loop ({@link #HOST}) and, for each step, the script that the
 * host's child sources ({@link #of}) to become the step: its folder, exactly its environment, then {@code exec} of
 * its program, so that the step's process is the program itself, as a spawned step's is.
 *
 * <p>The host is started with an empty environment, and a POSIX shell exports only what it inherited or was told
 * to export. With {@code dash} (Debian's {@code /bin/sh}) the script therefore exports each variable and
 * {@code exec}s the program: the program sees exactly the step's environment. For another shell, or a variable
 * whose name a shell cannot hold ({@code A.B}), the program is started through {@code env -i NAME=VALUE...}
 * instead, which costs one more {@code exec}.
 *
 * <p>{@code PWD} is the step's folder, as the shell sets it on {@code cd} (and as the shell that starts a spawned step
 * sets it at its start), whatever the step's environment says.
 *
 * <p>The program is looked up, as {@link Executables#find} looked it up, in the step's {@code PATH}, or this
 * process's where the step has none (then set for the look-up only, not exported).
 */
final class StepScript {

    /**
     * The host's loop, {@code /bin/sh -c HOST archpool-step-host FOLDER MKFIFO}. It makes the FIFO {@code FOLDER/out} and prints {@code ready}, or refuses to run (status
     * {@value #NOT_FIRST}) unless it is the first process of its PID namespace, since {@code kill -9 -1} there ends
     * the namespace's other processes and, anywhere else, every process of the user. For each {@code run} line on
     * stdin it opens {@code FOLDER/out} (a FIFO whose reader is the worker's output thread), prints {@code started},
     * runs {@code FOLDER/step} in a child whose stdin is {@code /dev/null} and whose stdout and stderr are the FIFO,
     * waits for that child (and reaps every orphan the namespace hands it while waiting), kills whatever the step
     * left running, and prints {@code exit STATUS} (128 + n for signal n). EOF on stdin ends it, and with it the
     * namespace. Its own messages go to {@code /dev/null}.
     */
    static final String HOST = "[ \"$$\" = 1 ] || exit 70; "
            + "\"$2\" -m 600 -- \"$1/out\" || exit 71; exec 2>/dev/null; echo ready; "
            + "while read -r cmd; do "
            + "exec 4>\"$1/out\"; "
            + "(echo started; exec </dev/null >&4 2>&4 4>&-; . \"$1/step\"); s=$?; "
            + "exec 4>&-; kill -9 -1; echo \"exit $s\"; "
            + "done";

    /** The status with which {@link #HOST} refuses to run outside the first process of a PID namespace. */
    static final int NOT_FIRST = 70;

    /** The status of a step whose folder cannot be entered (as {@code exec} of a program that cannot run). */
    static final int NO_FOLDER = 126;

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private StepScript() {
    }

    /**
     * The script that makes the host's child the step.
     *
     * @param argv      the program and its arguments
     * @param cwd       the folder it runs in
     * @param env       its whole environment ({@link ChildEnvironment#forStep})
     * @param lookUp    the {@code PATH} to find the program in when {@code env} has none (this process's)
     * @param exports   whether the host's shell is one whose exports are the program's whole environment (dash)
     * @param envTool   {@code env}, for the other form
     */
    static String of(List<String> argv, String cwd, Map<String, String> env, String lookUp, boolean exports,
                     Path envTool) {
        StringBuilder s = new StringBuilder(256 + 32 * env.size());
        s.append("cd -P -- ").append(quote(cwd)).append(" || exit ").append(NO_FOLDER).append('\n');
        s.append("unset OLDPWD\n");
        boolean plain = exports && env.keySet().stream().allMatch(n -> NAME.matcher(n).matches());
        if (!env.containsKey("PATH") && lookUp != null) {
            s.append("PATH=").append(quote(lookUp)).append('\n');
        }
        if (plain) {
            env.forEach((name, value) -> {
                if (!name.equals("PWD")) {
                    s.append("export ").append(name).append('=').append(quote(value)).append('\n');
                }
            });
            s.append("exec");
        } else {
            s.append("exec ").append(quote(envTool.toString())).append(" -i");
            env.forEach((name, value) -> {
                if (!name.equals("PWD")) {
                    s.append(' ').append(quote(name + "=" + value));
                }
            });
            s.append(" PWD=\"$PWD\"");
        }
        argv.forEach(a -> s.append(' ').append(quote(a)));
        s.append('\n');
        return s.toString();
    }

    /** {@code text} as one shell word: in single quotes, each single quote written as {@code '\''}. */
    static String quote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }

    /** Whether {@code shell} is dash, whose exports are a program's whole environment (see the class comment). */
    static boolean exportsExactly(Path shell) {
        try {
            return shell.toRealPath().getFileName().toString().equals("dash");
        } catch (IOException e) {
            return false;
        }
    }
}
