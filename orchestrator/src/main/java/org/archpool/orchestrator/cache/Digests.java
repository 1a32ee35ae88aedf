package org.archpool.orchestrator.cache;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/** SHA-256, the one hash of the cache: of keys, blobs and files, always as 64 lower-case hex digits. */
public final class Digests {

    private static final Pattern HEX = Pattern.compile("[0-9a-f]{64}");

    private Digests() {
    }

    /** A new SHA-256 digest (every JVM has one). */
    public static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this Java runtime has no SHA-256", e);
        }
    }

    public static String hex(byte[] digest) {
        return HexFormat.of().formatHex(digest);
    }

    public static String of(byte[] bytes) {
        return hex(sha256().digest(bytes));
    }

    public static String of(String text) {
        return of(text.getBytes(StandardCharsets.UTF_8));
    }

    /** The digest of a file's bytes; a link is not followed. */
    public static String ofFile(Path file) throws IOException {
        MessageDigest md = sha256();
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            byte[] buf = new byte[1 << 16];
            int n;
            while ((n = in.read(buf)) > 0) {
                md.update(buf, 0, n);
            }
        }
        return hex(md.digest());
    }

    /** Copies {@code in} to {@code out} and returns the digest of what was copied. */
    public static String copy(InputStream in, OutputStream out) throws IOException {
        MessageDigest md = sha256();
        byte[] buf = new byte[1 << 16];
        int n;
        while ((n = in.read(buf)) > 0) {
            md.update(buf, 0, n);
            out.write(buf, 0, n);
        }
        return hex(md.digest());
    }

    /** Whether {@code s} is a digest as the cache writes them: a name that can be a file name and a URL path. */
    public static boolean isDigest(String s) {
        return s != null && HEX.matcher(s).matches();
    }
}
