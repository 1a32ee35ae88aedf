package org.archpool.orchestrator.service;

import static org.archpool.protocol.UntrustedText.quote;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;
import org.archpool.protocol.UntrustedText;

/**
 * The JSON-lines codec of docs/service.md: a client's line becomes a {@link ClientMessage} or the {@code error}
 * reply that says what is wrong with it; a {@link ServerMessage} becomes one line, {@code type} first.
 */
public final class ServiceCodec {

    /** The longest line either side may send, without its {@code \n}: 4 MiB. */
    public static final int MAX_LINE_BYTES = 4 * 1024 * 1024;

    /** The longest {@code clientJobId}. */
    public static final int MAX_CLIENT_JOB_ID = 128;

    /** A decoded line: a message to act on, or the error reply to send instead. */
    public sealed interface Decoded {
        /** A well-formed message. */
        record Message(ClientMessage message) implements Decoded {
        }

        /** A line or message that cannot be taken. */
        record Refused(ServerMessage.Error error) implements Decoded {
        }
    }

    private final ObjectMapper mapper = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    /** One line, as sent, a {@code \n} ending it (the last line of a stream may lack it). */
    public byte[] encode(ServerMessage message) {
        ObjectNode line = mapper.createObjectNode();
        line.put("type", message.type());
        line.setAll((ObjectNode) mapper.valueToTree(message));
        try {
            byte[] json = mapper.writeValueAsBytes(line);
            byte[] out = new byte[json.length + 1];
            System.arraycopy(json, 0, out, 0, json.length);
            out[json.length] = '\n';
            return out;
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot encode a " + message.type() + " message", e);
        }
    }

    /** The error reply for a line longer than {@link #MAX_LINE_BYTES}, of which the rest was skipped. */
    public static ServerMessage.Error tooLong(long bytes) {
        return ServerMessage.Error.of(ErrorCode.BAD_LINE, "the line is " + bytes + " bytes, over the limit of "
                + MAX_LINE_BYTES + " bytes (4 MiB); it was skipped. Send each message on one line of at most 4 MiB");
    }

    /** Decodes one line, without its {@code \n}. */
    public Decoded decode(byte[] line) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(line));
        } catch (CharacterCodingException e) {
            return refused(ErrorCode.BAD_LINE, null, null, "the line is not UTF-8 text; send JSON encoded as UTF-8");
        }
        JsonNode root;
        try (JsonParser parser = mapper.createParser(line)) {
            root = mapper.readTree(parser);
            if (root != null && parser.nextToken() != null) {
                return refused(ErrorCode.BAD_LINE, null, null, "the line goes on after its JSON object; send one"
                        + " object per line");
            }
        } catch (JsonProcessingException e) {
            return refused(ErrorCode.BAD_LINE, null, null, "the line is not JSON: "
                    + UntrustedText.printable(e.getOriginalMessage(), 200) + "; send one JSON object per line");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (root == null || !root.isObject()) {
            return refused(ErrorCode.BAD_LINE, null, null, "the line is "
                    + (root == null ? "empty" : "a JSON " + root.getNodeType().name().toLowerCase(Locale.ROOT))
                    + ", not an object; send one JSON object per line, such as {\"type\": \"status\"}");
        }
        String clientJobId = root.path("clientJobId").isTextual() ? root.get("clientJobId").textValue() : null;
        String requestId = root.path("requestId").isTextual() ? root.get("requestId").textValue() : null;
        JsonNode type = root.get("type");
        if (type == null || !type.isTextual()) {
            return refused(ErrorCode.BAD_MESSAGE, clientJobId, requestId, "the message has no \"type\" string; every"
                    + " message names its type: submit, cancel, status or shutdown");
        }
        try {
            return new Decoded.Message(switch (type.textValue()) {
                case "submit" -> submit(root);
                case "cancel" -> new ClientMessage.Cancel(clientJobId(root));
                case "status" -> new ClientMessage.Status(optionalString(root, "requestId"));
                case "shutdown" -> new ClientMessage.Shutdown(optionalBoolean(root, "cancelRunning"));
                default -> throw new BadMessage("the message type " + quote(type.textValue(), 40) + " is unknown; use"
                        + " submit, cancel, status or shutdown");
            });
        } catch (BadMessage e) {
            return refused(ErrorCode.BAD_MESSAGE, clientJobId, requestId, e.getMessage());
        }
    }

    private static ClientMessage.Submit submit(JsonNode root) throws BadMessage {
        String clientJobId = clientJobId(root);
        JsonNode cwd = root.get("cwd");
        if (cwd == null || !cwd.isTextual()) {
            throw new BadMessage("submit: \"cwd\" must be a string, the absolute folder the job's relative paths start"
                    + " at");
        }
        Path folder;
        try {
            folder = Path.of(cwd.textValue());
        } catch (InvalidPathException e) {
            throw new BadMessage("submit: \"cwd\" " + quote(cwd.textValue(), 200) + " is not a path: " + e.getReason());
        }
        if (!folder.isAbsolute()) {
            throw new BadMessage("submit: \"cwd\" " + quote(cwd.textValue(), 200) + " is not absolute; give the full"
                    + " path of the folder the job's relative paths start at");
        }
        JsonNode job = root.get("job");
        if (job == null || job.isNull()) {
            throw new BadMessage("submit: \"job\" is missing; give one job object, as in a manifest's \"jobs\"");
        }
        return new ClientMessage.Submit(clientJobId, folder, job);
    }

    private static String clientJobId(JsonNode root) throws BadMessage {
        JsonNode id = root.get("clientJobId");
        String type = root.get("type").textValue();
        if (id == null || !id.isTextual()) {
            throw new BadMessage(type + ": \"clientJobId\" must be a string, the client's name for the job");
        }
        int length = id.textValue().length();
        if (length < 1 || length > MAX_CLIENT_JOB_ID) {
            throw new BadMessage(type + ": \"clientJobId\" must have 1 to " + MAX_CLIENT_JOB_ID + " characters, not "
                    + length);
        }
        return id.textValue();
    }

    private static String optionalString(JsonNode root, String field) throws BadMessage {
        JsonNode v = root.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw new BadMessage(root.get("type").textValue() + ": \"" + field + "\" must be a string");
        }
        return v.textValue();
    }

    private static boolean optionalBoolean(JsonNode root, String field) throws BadMessage {
        JsonNode v = root.get(field);
        if (v == null || v.isNull()) {
            return false;
        }
        if (!v.isBoolean()) {
            throw new BadMessage(root.get("type").textValue() + ": \"" + field + "\" must be true or false");
        }
        return v.booleanValue();
    }

    private static Decoded refused(ErrorCode code, String clientJobId, String requestId, String message) {
        return new Decoded.Refused(new ServerMessage.Error(code, clientJobId, requestId, message));
    }

    /** A field missing or of the wrong type; the message names it. */
    private static final class BadMessage extends Exception {
        private static final long serialVersionUID = 1L;

        BadMessage(String message) {
            super(message);
        }
    }
}
