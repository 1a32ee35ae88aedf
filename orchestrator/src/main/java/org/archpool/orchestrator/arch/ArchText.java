package org.archpool.orchestrator.arch;

import static org.archpool.protocol.UntrustedText.quote;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Architecture text as it arrives from {@code --arch}, {@code HIPARCHS} or {@code CUDAARCHS}: untrusted. Its
 * entries later reach CMake's argv, file names and environment variables, so everything here is checked
 * before any grammar looks at it, and a message that repeats it quotes it with
 * {@link org.archpool.protocol.UntrustedText#quote}.
 *
 * <ul>
 *   <li>A list longer than {@value #MAX_LIST_CHARS} characters is refused whole, before it is split.</li>
 *   <li>Only printable ASCII ({@code !} to {@code ~}) and the separators {@code ,} {@code ;} space, tab, CR and
 *       LF may appear. Every other character is refused: NUL and other control characters (also vertical tab
 *       and form feed), DEL, and all non-ASCII characters, including look-alikes such as a Cyrillic U+0445 in
 *       place of the x of gfx942, fullwidth digits (U+FF10 to U+FF19) and the no-break space U+00A0 (an error, not
 *       a separator: a list that only looks separated is more likely pasted than meant).</li>
 *   <li>Each entry is at most {@value #MAX_TOKEN_CHARS} characters, starts with a letter or digit (so never
 *       {@code -rf}, {@code .} or {@code /}) and holds only letters, digits and {@code . _ : + -}: the characters
 *       that architecture names use. {@code ../x} and absolute paths are refused here.</li>
 * </ul>
 */
public final class ArchText {

    /** The longest architecture list accepted, in characters. */
    public static final int MAX_LIST_CHARS = 4096;
    /** The longest single entry accepted; the longest real name ({@code gfx10-3-generic}...) is far shorter. */
    public static final int MAX_TOKEN_CHARS = 64;

    private static final String ALLOWED = "letters, digits and . _ : + -";

    private ArchText() {
    }

    /** Whether {@code c} separates list entries: {@code ,} {@code ;} space, tab, CR or LF. */
    static boolean isSeparator(char c) {
        return c == ',' || c == ';' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }

    /**
     * The entries of a list, in order, empty ones dropped, after refusing an over-long list, any character
     * that is not printable ASCII or a separator, and any entry of the wrong shape (in that order, each over
     * the whole list, so that no later step sees hostile text).
     */
    static List<String> tokens(String text) throws ArchSyntaxException {
        requireLength(text, MAX_LIST_CHARS, "the architecture list");
        requirePlainAscii(text, true);
        List<String> tokens = new ArrayList<>();
        int start = -1;
        for (int i = 0; i <= text.length(); i++) {
            if (i == text.length() || isSeparator(text.charAt(i))) {
                if (start >= 0) {
                    tokens.add(text.substring(start, i));
                    start = -1;
                }
            } else if (start < 0) {
                start = i;
            }
        }
        for (String token : tokens) {
            requireShape(token);
        }
        return tokens;
    }

    /** The checks of {@link #tokens} for one entry on its own: a separator inside it is refused too. */
    static void requireToken(String token) throws ArchSyntaxException {
        requireLength(token, MAX_LIST_CHARS, "the architecture");
        requirePlainAscii(token, false);
        requireShape(token);
    }

    private static void requireLength(String text, int limit, String what) throws ArchSyntaxException {
        if (text.length() > limit) {
            throw new ArchSyntaxException(what + " is " + text.length() + " characters long, over the limit of "
                    + limit + "; it starts " + quote(text) + ". Name the architectures themselves, e.g. --arch gfx942"
                    + " or --arch 90");
        }
    }

    private static void requirePlainAscii(String text, boolean separatorsAllowed) throws ArchSyntaxException {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (isSeparator(c)) {
                if (separatorsAllowed) {
                    continue;
                }
                throw new ArchSyntaxException(quote(text) + " holds a list separator (" + quote(String.valueOf(c))
                        + ") where one architecture was expected; parse lists with ArchList.parse");
            }
            if (c > 0x20 && c < 0x7f) {
                continue;
            }
            int codePoint = text.codePointAt(i);
            String name = Character.getName(codePoint);
            String described = String.format(Locale.ROOT, "U+%04X", codePoint) + (name == null ? "" : " " + name);
            String kind = Character.isISOControl(codePoint) ? "the control character " : "the non-ASCII character ";
            String hint;
            if (Character.isISOControl(codePoint)) {
                hint = "; control characters never belong in an architecture list";
            } else if (Character.isSpaceChar(codePoint)) {
                hint = "; separate entries with ',', ';' or a plain ASCII space";
            } else {
                hint = "; look-alike letters and digits from other scripts or fullwidth forms are refused,"
                        + " so retype the name in plain ASCII (e.g. --arch gfx942 or --arch 90)";
            }
            throw new ArchSyntaxException(quote(entryAround(text, i)) + " contains " + kind + described
                    + " (character " + (i + 1) + " of " + text.length() + "): architecture names are plain ASCII "
                    + ALLOWED + hint);
        }
    }

    /** The run of non-separator characters around index {@code at}, so a message shows the entry at fault. */
    private static String entryAround(String text, int at) {
        int start = at;
        while (start > 0 && !isSeparator(text.charAt(start - 1))) {
            start--;
        }
        int end = at + 1;
        while (end < text.length() && !isSeparator(text.charAt(end))) {
            end++;
        }
        return text.substring(start, end);
    }

    private static void requireShape(String token) throws ArchSyntaxException {
        if (token.isEmpty()) {
            throw new ArchSyntaxException("the architecture is empty; name one, e.g. gfx942 or 90");
        }
        if (token.length() > MAX_TOKEN_CHARS) {
            throw new ArchSyntaxException(quote(token) + " is " + token.length()
                    + " characters long; no architecture name is longer than " + MAX_TOKEN_CHARS);
        }
        char first = token.charAt(0);
        if (!isAsciiLetterOrDigit(first)) {
            throw new ArchSyntaxException(quote(token) + " does not look like an architecture: it starts with "
                    + quote(String.valueOf(first)) + ", and architecture names start with a letter or digit"
                    + " (e.g. gfx942, 90, sm_90)");
        }
        for (int i = 1; i < token.length(); i++) {
            char c = token.charAt(i);
            if (!isAsciiLetterOrDigit(c) && ".:_+-".indexOf(c) < 0) {
                throw new ArchSyntaxException(quote(token) + " contains " + quote(String.valueOf(c))
                        + ", which no architecture name has (they hold only " + ALLOWED + ")");
            }
        }
    }

    private static boolean isAsciiLetterOrDigit(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }
}
