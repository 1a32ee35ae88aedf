package org.archpool.worker.exec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The GPU device nodes and driver views that an isolated process must not see, and how to mask them in a
 * mount namespace of its own: each path that exists is covered, a folder by an empty read-only {@code tmpfs},
 * anything else (a device node) by a read-only {@code nodev} bind of itself, which no one, root included, can
 * open. Nothing else in the file system changes. Either the shell expands the patterns where the commands run
 * ({@link #commands()}: a Slurm node masks its own devices), or this machine's paths are listed once in an fstab
 * ({@link #fstab()}, {@link #commandsListedIn}); one {@code mount -a} masks them all. A mount that fails ends
 * the commands with status {@value #FAILED}, after {@code mount}'s own message.
 *
 * @param patterns absolute paths, {@code *} allowed (shell patterns), in the order they are masked
 * @param mount    util-linux {@code mount}
 */
public record DeviceMask(List<String> patterns, Path mount) {

    /** Every GPU device node and driver view: NVIDIA's nodes and capability folder, AMD's KFD and every DRM node. */
    public static final List<String> GPU = List.of("/dev/nvidia*", "/dev/kfd", "/dev/dri", "/proc/driver/nvidia",
            "/sys/class/kfd", "/sys/devices/virtual/kfd");

    /** The status of the mask commands when a path could not be masked. */
    public static final int FAILED = 125;

    private static final Pattern SAFE = Pattern.compile("/[A-Za-z0-9/_.*+-]*");

    public DeviceMask {
        patterns = List.copyOf(patterns);
        Objects.requireNonNull(mount, "mount");
        for (String p : patterns) {
            if (!SAFE.matcher(p).matches()) {
                throw new IllegalArgumentException("not a plain absolute path pattern: " + p);
            }
        }
    }

    /** {@link #GPU} masked with the system's {@code mount}; empty when there is no {@code mount}. */
    public static Optional<DeviceMask> gpu(UtilLinux tools) {
        return tools.mount().map(m -> new DeviceMask(GPU, m));
    }

    /** The patterns under {@code /proc}: what a step that mounts its own {@code /proc} must mask again. */
    public DeviceMask procOnly() {
        return new DeviceMask(patterns.stream().filter(p -> p.startsWith("/proc/")).toList(), mount);
    }

    /** The patterns outside {@code /proc}. */
    public DeviceMask withoutProc() {
        return new DeviceMask(patterns.stream().filter(p -> !p.startsWith("/proc/")).toList(), mount);
    }

    public boolean isEmpty() {
        return patterns.isEmpty();
    }

    /**
     * The paths that the patterns name here now, in order (a pattern's {@code *} may stand in its last name
     * only, as in {@link #GPU}).
     */
    public List<Path> present() {
        List<Path> found = new ArrayList<>();
        for (String pattern : patterns) {
            Path path = Path.of(pattern);
            String name = path.getFileName().toString();
            if (!name.contains("*")) {
                if (Files.exists(path)) {
                    found.add(path);
                }
                continue;
            }
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(path.getParent(), name)) {
                List<Path> matched = new ArrayList<>();
                entries.forEach(matched::add);
                matched.stream().filter(Files::exists).sorted().forEach(found::add);
            } catch (NoSuchFileException e) {
                // no such folder: nothing to mask there
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list " + path.getParent() + " for the devices to mask", e);
            }
        }
        return found;
    }

    /**
     * An fstab that masks {@link #present()} as {@link #commands()} would, for one {@code mount -a -T FILE}
     * ({@link #commandsListedIn}): one {@code mount} process instead of one per path, which is most of what
     * masking costs.
     */
    public String fstab() {
        StringBuilder table = new StringBuilder();
        for (Path p : present()) {
            String at = fstabField(p.toString());
            table.append(Files.isDirectory(p)
                    ? "archpool-masked " + at + " tmpfs ro,nodev,nosuid,noexec,size=4k,mode=555 0 0\n"
                    : at + " " + at + " none bind,ro,nodev 0 0\n");
        }
        return table.toString();
    }

    /** The shell command that mounts what {@code fstab} (written from {@link #fstab()}) lists, ending in {@code ;}. */
    public String commandsListedIn(Path fstab) {
        return mount + " -a -T '" + fstab.toString().replace("'", "'\\''") + "' || exit " + FAILED + "; ";
    }

    /** fstab's escapes: space, tab, newline and backslash as octal. */
    private static String fstabField(String s) {
        return s.replace("\\", "\\134").replace(" ", "\\040").replace("\t", "\\011").replace("\n", "\\012");
    }

    /**
     * The shell commands, ending in {@code ;} (nothing when there are no patterns): the shell expands the
     * patterns and lists what exists in an fstab, a new file in {@code $TMPDIR} (else {@code /tmp}), which one
     * {@code mount -a} mounts and which is then removed: three processes ({@code mktemp}, {@code mount},
     * {@code rm}) however many paths, none when nothing is there. A path with white space or a backslash in its name, which an fstab line cannot hold as it is,
     * fails the commands, as does a table that cannot be written. One path alone ({@code /proc/driver/nvidia}
     * in a step) is mounted directly: one process where it exists.
     */
    public String commands() {
        if (patterns.isEmpty()) {
            return "";
        }
        String m = mount.toString();
        if (patterns.size() == 1 && !patterns.get(0).contains("*")) {
            String p = patterns.get(0);
            return "if [ -d " + p + " ]; then " + m + " -t tmpfs -o ro,nodev,nosuid,noexec,size=4k,mode=555"
                    + " archpool-masked " + p + " || exit " + FAILED + "; elif [ -e " + p + " ]; then " + m
                    + " --bind -o ro,nodev " + p + " " + p + " || exit " + FAILED + "; fi; ";
        }
        return "t=; for p in " + String.join(" ", patterns) + "; do"
                + " case $p in *[[:space:]\\\\]*) echo \"archpool: cannot mask $p (a name with white space)\" >&2;"
                + " exit " + FAILED + ";; esac;"
                + " if [ -d \"$p\" ]; then t=\"${t}archpool-masked $p tmpfs ro,nodev,nosuid,noexec,size=4k,mode=555 0 0\n\";"
                + " elif [ -e \"$p\" ]; then t=\"${t}$p $p none bind,ro,nodev 0 0\n\"; fi; done;"
                + " if [ -n \"$t\" ]; then f=$(mktemp \"${TMPDIR:-/tmp}/.archpool-masks.XXXXXX\") || exit " + FAILED + ";"
                + " printf '%s' \"$t\" > \"$f\" || exit " + FAILED + "; " + m + " -a -T \"$f\"; s=$?; rm -f \"$f\";"
                + " [ \"$s\" -eq 0 ] || exit " + FAILED + "; fi; ";
    }
}
