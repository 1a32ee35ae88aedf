package org.archpool.orchestrator.pool.slurm;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Checks the {@code srun} arguments a user passes through. archpool sets the ones that the protocol and the
 * clean-up depend on; a user's value for one of them would break the build in a way that is hard to see
 * (a second task writing to the worker's stdout, a label before every protocol line, a step that cannot be
 * found to cancel), so each is refused with what to do instead, in every spelling srun reads: {@code --label},
 * an abbreviation such as {@code --lab}, {@code --ntasks=2}, {@code -n2}, {@code -n}, or among other short flags
 * ({@code -vl}).
 */
public final class SrunArguments {

    /** Long options archpool sets itself, and why a user may not. */
    private static final List<String[]> OWNED = List.of(
            new String[] {"--ntasks", "-n", "each worker is exactly one task; use -j for more workers"},
            new String[] {"--cpus-per-task", "-c", "use --build-parallelism K, which sets both the CPUs and the"
                    + " build's parallelism"},
            new String[] {"--job-name", "-J", "archpool names each worker's step so that it can cancel it"},
            new String[] {"--output", "-o", "the worker's stdout carries the protocol to archpool"},
            new String[] {"--input", "-i", "the worker's stdin carries the protocol from archpool"},
            new String[] {"--error", "-e", "archpool sends each worker's stderr to its log folder"},
            new String[] {"--label", "-l", "a label before each line breaks the protocol"},
            new String[] {"--pty", null, "a terminal mangles the protocol's lines"},
            new String[] {"--multi-prog", null, "each worker runs archpool's worker program"});

    /**
     * srun's short options that take no value, so that another may follow in the same argument ({@code -vl} is
     * {@code -v -l}); after any other letter the rest of the argument is that option's value ({@code -pl} is
     * partition {@code l}).
     */
    private static final String SHORT_FLAGS = "EHOQsuvVXZ";

    private SrunArguments() {
    }

    /**
     * The user's arguments split into the node lists they exclude and the rest, so that archpool can merge its
     * own avoided nodes into one {@code --exclude}: srun keeps only the last {@code --exclude} it is given.
     *
     * @param excluded the lists of {@code --exclude=LIST}, {@code --exclude LIST}, {@code --exclud=LIST},
     *                 {@code -x LIST} and {@code -xLIST}, as written (Slurm's host lists, e.g. {@code node[1-3]})
     * @param rest     every other argument, in order
     */
    public record Split(List<String> excluded, List<String> rest) {
    }

    /** Splits {@code args} into the node lists they exclude and the rest. */
    public static Split excludes(List<String> args) {
        List<String> excluded = new ArrayList<>();
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            String name = arg.split("=", 2)[0];
            // --exclud is the shortest abbreviation getopt_long takes: --exclu is also --exclusive's
            if (arg.startsWith("--") && name.length() >= "--exclud".length() && "--exclude".startsWith(name)) {
                if (arg.contains("=")) {
                    excluded.add(arg.substring(arg.indexOf('=') + 1));
                } else if (i + 1 < args.size()) {
                    excluded.add(args.get(++i));
                }
            } else if (arg.equals("-x") && i + 1 < args.size()) {
                excluded.add(args.get(++i));
            } else if (arg.startsWith("-x") && arg.length() > 2) {
                excluded.add(arg.substring(2));
            } else {
                rest.add(arg);
            }
        }
        excluded.removeIf(String::isBlank);
        return new Split(List.copyOf(excluded), List.copyOf(rest));
    }

    /**
     * @return null when every argument may be passed through, else a sentence naming the first that may not
     */
    public static String refusal(List<String> args) {
        for (String arg : args) {
            String[] owned = owner(arg);
            if (owned != null) {
                return "--srun-arg " + arg + " sets srun's " + owned[0] + ", which archpool sets itself: "
                        + owned[2];
            }
        }
        return null;
    }

    /** The owned option {@code arg} sets, or null. */
    private static String[] owner(String arg) {
        if (arg.startsWith("--")) {
            // srun reads options with getopt_long, which takes any unambiguous abbreviation (--lab for --label)
            String name = arg.toLowerCase(Locale.ROOT).split("=", 2)[0];
            if (name.length() > 2) {
                for (String[] owned : OWNED) {
                    if (owned[0].startsWith(name)) {
                        return owned;
                    }
                }
            }
            return null;
        }
        if (arg.startsWith("-")) {
            for (int i = 1; i < arg.length(); i++) {
                char letter = arg.charAt(i);
                for (String[] owned : OWNED) {
                    if (owned[1] != null && owned[1].charAt(1) == letter) {
                        return owned;
                    }
                }
                if (SHORT_FLAGS.indexOf(letter) < 0) {
                    return null;
                }
            }
        }
        return null;
    }
}
