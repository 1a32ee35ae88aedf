package org.archpool.orchestrator.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.archpool.protocol.UntrustedText;
import org.archpool.protocol.UserLocale;

/**
 * archpool's arguments, environment and working folder as the kernel holds them: bytes. Jobs get text unchanged
 * only if it is valid UTF-8 (the JVMs run under a UTF-8 locale, {@link UserLocale}); bytes that are not are
 * refused before anything runs, naming where they are, never rewritten.
 *
 * <p>The JVM has already decoded its arguments and environment when {@code main} runs, and turned each invalid
 * byte into U+FFFD, so the check reads the bytes the process was started with ({@code /proc/self/cmdline},
 * {@code /proc/self/environ}): a U+FFFD that the user really wrote (the valid bytes {@code EF BF BD}) passes,
 * and an invalid byte is caught even where the decoded text could not tell it from one. The working folder is
 * checked by asking whether the path the JVM decoded names the folder the process is in. When the JVM's own
 * charset ({@code sun.jnu.encoding}) is not UTF-8 (a system without {@value UserLocale#JVM_LOCALE}), any
 * non-ASCII byte is refused, since the JVM would rewrite it.
 */
final class ProcessText {

    private ProcessText() {
    }

    /** The reason to refuse this process's input, or empty; nothing is refused where {@code /proc} is missing. */
    static Optional<String> problem(int argumentCount) {
        try {
            byte[] cmdline = Files.readAllBytes(Path.of("/proc/self/cmdline"));
            byte[] environ = Files.readAllBytes(Path.of("/proc/self/environ"));
            boolean utf8 = "UTF-8".equalsIgnoreCase(System.getProperty("sun.jnu.encoding"));
            String userDir = System.getProperty("user.dir");
            boolean rewritten = utf8 ? userDir.indexOf('\ufffd') >= 0 : !userDir.chars().allMatch(c -> c < 0x80);
            if (rewritten && !Files.readSymbolicLink(Path.of("/proc/self/cwd")).equals(Path.of(userDir))) {
                return Optional.of("the path of the current folder, " + UntrustedText.quote(userDir) + " as decoded, is "
                        + why(utf8) + "; run archpool from a folder whose path is UTF-8 (convmv renames files and"
                        + " folders from another encoding)");
            }
            return problem(cmdline, environ, argumentCount, utf8);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * @param cmdline  NUL-separated argv of the JVM (its options, the class, then archpool's arguments)
     * @param environ  NUL-separated {@code NAME=value} entries
     * @param jvmUtf8  whether the JVM decodes with UTF-8; if not, every non-ASCII byte is refused
     */
    static Optional<String> problem(byte[] cmdline, byte[] environ, int argumentCount, boolean jvmUtf8) {
        List<byte[]> argv = split(cmdline);
        for (int i = Math.max(0, argv.size() - argumentCount); i < argv.size(); i++) {
            byte[] arg = argv.get(i);
            if (!acceptable(arg, jvmUtf8)) {
                int position = i - (argv.size() - argumentCount) + 1;
                return Optional.of("argument " + position + " of archpool, " + UntrustedText.quoteUtf8(arg, arg.length,
                        UntrustedText.DEFAULT_MAX_CHARS) + ", is " + why(jvmUtf8)
                        + "; give it as UTF-8 (a file name in another encoding can be renamed with convmv)");
            }
        }
        for (byte[] entry : split(environ)) {
            if (!acceptable(entry, jvmUtf8)) {
                int eq = indexOf(entry, (byte) '=');
                byte[] nameBytes = Arrays.copyOf(entry, eq < 0 ? entry.length : eq);
                String name = UserLocale.userName(new String(nameBytes, StandardCharsets.UTF_8));
                return Optional.of("the environment variable " + UntrustedText.quote(name) + " (which every job"
                        + " inherits) holds " + UntrustedText.quoteUtf8(entry, entry.length, 120) + ", which "
                        + "is " + why(jvmUtf8) + "; unset it or set it to UTF-8 text for archpool");
            }
        }
        return Optional.empty();
    }

    private static String why(boolean jvmUtf8) {
        return jvmUtf8 ? "not valid UTF-8, and archpool passes text to jobs unchanged or not at all"
                : "not ASCII, and this system has no " + UserLocale.JVM_LOCALE + " locale (see locale -a) for"
                + " archpool to pass it to jobs unchanged";
    }

    private static boolean acceptable(byte[] bytes, boolean jvmUtf8) {
        if (!jvmUtf8) {
            for (byte b : bytes) {
                if (b < 0) {
                    return false;
                }
            }
            return true;
        }
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static List<byte[]> split(byte[] bytes) {
        List<byte[]> parts = new ArrayList<>();
        int from = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == 0) {
                parts.add(Arrays.copyOfRange(bytes, from, i));
                from = i + 1;
            }
        }
        if (from < bytes.length) {
            parts.add(Arrays.copyOfRange(bytes, from, bytes.length));
        }
        return parts;
    }

    private static int indexOf(byte[] bytes, byte b) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }
}
