package org.archpool.orchestrator.report;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes an XML document element by element to a {@link Writer}, indented by two spaces, without holding the
 * document: only the open elements' names and the attributes of the one being started. Attributes are written in
 * name order; an element without content is written as {@code <name/>}, one with only text on one line. Text and
 * attribute values are escaped as the JDK's serializer escapes them: {@code & < >}, CR, C1 controls and
 * characters outside the BMP as references, and in attributes also {@code "}, tab and LF (so that parsers keep
 * them); the caller passes only characters XML 1.0 allows.
 */
final class XmlStream {

    private final Writer out;
    private final Deque<String> open = new ArrayDeque<>();
    private final Map<String, String> attributes = new TreeMap<>();
    /** Whether the innermost element's start tag still waits for its attributes and its {@code >}. */
    private boolean tagOpen;

    XmlStream(Writer out) throws IOException {
        this.out = out;
        out.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    }

    /** Opens {@code name}; its attributes follow, then its content. */
    XmlStream start(String name) throws IOException {
        if (tagOpen) {
            closeTag(">");
        }
        if (!open.isEmpty()) {
            out.write('\n');
            indent(open.size());
        }
        out.write('<');
        out.write(name);
        open.push(name);
        tagOpen = true;
        return this;
    }

    /** An attribute of the element just started. */
    XmlStream attr(String name, String value) {
        if (!tagOpen) {
            throw new IllegalStateException("attribute " + name + " after the content of <" + open.peek() + ">");
        }
        attributes.put(name, value);
        return this;
    }

    /** The text content of the element just started, which then ends. */
    void textElement(String text) throws IOException {
        closeTag(">");
        escape(text, false);
        out.write("</");
        out.write(open.pop());
        out.write('>');
    }

    /** Ends the innermost open element. */
    void end() throws IOException {
        String name = open.pop();
        if (tagOpen) {
            closeTag("/>");
        } else {
            out.write('\n');
            indent(open.size());
            out.write("</");
            out.write(name);
            out.write('>');
        }
    }

    /** Ends the document, which must have no open element left. */
    void finish() throws IOException {
        if (!open.isEmpty()) {
            throw new IllegalStateException("<" + open.peek() + "> is still open");
        }
        out.write('\n');
        out.flush();
    }

    private void closeTag(String close) throws IOException {
        if (!tagOpen) {
            throw new IllegalStateException("no start tag is open");
        }
        for (Map.Entry<String, String> a : attributes.entrySet()) {
            out.write(' ');
            out.write(a.getKey());
            out.write("=\"");
            escape(a.getValue(), true);
            out.write('"');
        }
        attributes.clear();
        out.write(close);
        tagOpen = false;
    }

    private void indent(int depth) throws IOException {
        for (int i = 0; i < depth; i++) {
            out.write("  ");
        }
    }

    private void escape(String s, boolean attribute) throws IOException {
        int from = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            String ref = switch (c) {
                case '&' -> "&amp;";
                case '<' -> "&lt;";
                case '>' -> "&gt;";
                case '"' -> attribute ? "&quot;" : null;
                case '\n' -> attribute ? "&#10;" : null;
                case '\r' -> "&#13;";
                case '\t' -> attribute ? "&#9;" : null;
                default -> null;
            };
            int width = 1;
            if (ref == null && c >= 0x7F && c <= 0x9F) {
                ref = "&#" + (int) c + ";";
            } else if (ref == null && Character.isHighSurrogate(c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                ref = "&#" + Character.toCodePoint(c, s.charAt(i + 1)) + ";";
                width = 2;
            }
            if (ref != null) {
                out.write(s, from, i - from);
                out.write(ref);
                i += width - 1;
                from = i + 1;
            }
        }
        out.write(s, from, s.length() - from);
    }
}
