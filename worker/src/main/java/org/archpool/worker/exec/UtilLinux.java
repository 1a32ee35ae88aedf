package org.archpool.worker.exec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Where the util-linux programs that contain a step are: {@code setsid}, {@code setpriv}, {@code unshare},
 * {@code mount} (which masks GPU devices, {@link DeviceMask}), {@code mkfifo} and {@code env} (which a
 * {@link StepHost} uses), and the POSIX shell that reaps orphans in a
 * step's PID namespace. Looked up in the system's folders, never on a job's {@code PATH}.
 */
public record UtilLinux(Optional<Path> setsid, Optional<Path> setpriv, Optional<Path> unshare, Optional<Path> mount,
                        Optional<Path> shell, Optional<Path> mkfifo, Optional<Path> env) {

    private static final List<Path> FOLDERS = List.of(Path.of("/usr/bin"), Path.of("/bin"), Path.of("/usr/sbin"),
            Path.of("/sbin"));

    /** The programs found in {@code /usr/bin}, {@code /bin}, {@code /usr/sbin} and {@code /sbin}. */
    public static UtilLinux system() {
        return new UtilLinux(find("setsid"), find("setpriv"), find("unshare"), find("mount"),
                Optional.of(Path.of("/bin/sh")).filter(Files::isExecutable), find("mkfifo"), find("env"));
    }

    private static Optional<Path> find(String name) {
        return FOLDERS.stream().map(f -> f.resolve(name)).filter(Files::isExecutable).findFirst();
    }
}
