package org.archpool.orchestrator.arch;

/** Quotes user-supplied text safely for messages: control and non-ASCII characters escaped, long text cut. */
public final class Quote {

    /** The longest quoted text, in characters. */
    public static final int MAX = 80;

    private Quote() {
    }

    public static String safe(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length() && out.length() < MAX; i++) {
            char c = text.charAt(i);
            if (c >= 0x20 && c < 0x7f) {
                out.append(c);
            } else {
                out.append(String.format("\\u%04x", (int) c));
            }
        }
        if (out.length() >= MAX && text.length() > MAX) {
            out.append("… (").append(text.length()).append(" characters)");
        }
        return out.toString();
    }
}
