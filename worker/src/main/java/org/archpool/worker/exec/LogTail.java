package org.archpool.worker.exec;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** The last lines of a log file, read from its end without loading the whole file. */
public final class LogTail {

    private LogTail() {
    }

    /**
     * @return at most {@code maxLines} lines and {@code maxBytes} bytes from the end of {@code file}, or a
     *     note saying why it could not be read
     */
    public static String read(Path file, int maxLines, int maxBytes) {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            long length = raf.length();
            int size = (int) Math.min(length, maxBytes);
            byte[] bytes = new byte[size];
            raf.seek(length - size);
            raf.readFully(bytes);
            String text = new String(bytes, StandardCharsets.UTF_8);
            if (size < length) {
                int nl = text.indexOf('\n');
                text = nl >= 0 ? text.substring(nl + 1) : text;
            }
            String[] lines = text.split("\r?\n", -1);
            int end = lines.length;
            while (end > 0 && lines[end - 1].isEmpty()) {
                end--;
            }
            int from = Math.max(0, end - maxLines);
            return String.join("\n", java.util.Arrays.asList(lines).subList(from, end));
        } catch (IOException e) {
            return "(log " + file + " could not be read: " + e.getMessage() + ")";
        }
    }
}
