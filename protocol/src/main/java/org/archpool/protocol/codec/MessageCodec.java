package org.archpool.protocol.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.archpool.protocol.Message;

/**
 * Turns one message into one line of JSON and back. Thread-safe.
 *
 * <p>Built on Jackson's streaming parser and generator rather than its object mapper: a worker JVM starts
 * about three times faster without building the mapper's serializers (docs/performance.md), and the wire
 * format stays written out field by field, next to docs/protocol.md. Unknown fields are ignored; anything
 * after the line's object, a wrong type, a null where a number or list item belongs, or a missing required
 * field is a {@link ProtocolException} naming the field.
 */
public final class MessageCodec {

    private final JsonFactory json = JsonFactory.builder().build();
    private final MessageEncoder encoder = new MessageEncoder(json);
    private final MessageDecoder decoder = new MessageDecoder();

    /** The UTF-8 bytes of {@code message} as one JSON object, without the line feed. */
    public byte[] encode(Message message) {
        return encoder.encode(message);
    }

    /** Decodes one line (without its line feed). */
    public Message decode(byte[] line, int length) throws ProtocolException {
        try {
            return decoder.decode(WireObject.parse(json, line, length));
        } catch (JsonParseException e) {
            throw new ProtocolException("not JSON", line, length, e);
        } catch (IOException e) {
            String original = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
            throw new ProtocolException("invalid message: " + firstLine(original), line, length, e);
        } catch (MessageDecoder.UnknownTypeException e) {
            throw new ProtocolException(e.getMessage(), line, length, e);
        } catch (IllegalArgumentException | NullPointerException e) {
            // the messages' constructors refuse values with IllegalArgumentException, and missing required
            // values (Objects.requireNonNull) and null list items (List.copyOf) with NullPointerException
            String problem = e.getMessage() != null ? e.getMessage() : "a list or map holds null";
            throw new ProtocolException("invalid message: " + problem, line, length, e);
        }
    }

    /** Decodes a whole line given as text. */
    public Message decode(String line) throws ProtocolException {
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        return decode(bytes, bytes.length);
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
