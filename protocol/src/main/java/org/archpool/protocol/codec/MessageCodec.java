package org.archpool.protocol.codec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.archpool.protocol.Message;

/** Turns one message into one line of JSON and back. Thread-safe. */
public final class MessageCodec {

    private final ObjectMapper mapper;

    public MessageCodec() {
        this.mapper = JsonMapper.builder()
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                // a line is one object: anything after it means the line was corrupted (e.g. two writers mixed)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .build();
    }

    /** The UTF-8 bytes of {@code message} as one JSON object, without the line feed. */
    public byte[] encode(Message message) {
        try {
            return mapper.writeValueAsBytes(message);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + message.getClass().getSimpleName(), e);
        }
    }

    /** Decodes one line (without its line feed). */
    public Message decode(byte[] line, int length) throws ProtocolException {
        try {
            Message message = mapper.readValue(line, 0, length, Message.class);
            if (message == null) {
                throw new ProtocolException("not a protocol message (null)", line, length, null);
            }
            return message;
        } catch (IOException e) {
            throw new ProtocolException(describe(e), line, length, e);
        } catch (IllegalArgumentException e) {
            throw new ProtocolException("invalid message: " + e.getMessage(), line, length, e);
        }
    }

    /** Decodes a whole line given as text. */
    public Message decode(String line) throws ProtocolException {
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        return decode(bytes, bytes.length);
    }

    private static String describe(IOException e) {
        if (e instanceof com.fasterxml.jackson.databind.exc.InvalidTypeIdException) {
            return "unknown or missing message type";
        }
        if (e instanceof com.fasterxml.jackson.databind.exc.ValueInstantiationException v && v.getCause() != null) {
            Throwable cause = v.getCause();
            return "invalid message: " + (cause.getMessage() != null ? cause.getMessage()
                    : cause instanceof NullPointerException ? "a list or map holds null" : cause.getClass().getSimpleName());
        }
        if (e instanceof com.fasterxml.jackson.core.JsonParseException) {
            return "not JSON";
        }
        String original = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
        return "invalid message: " + firstLine(original);
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
