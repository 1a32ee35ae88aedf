package org.archpool.protocol.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One JSON object of a protocol line, read with Jackson's streaming parser, and typed access to its fields.
 * Unknown fields are kept and never looked at; a wrong type or a missing required field is an
 * {@link IllegalArgumentException} whose message names the field as {@code <where>.<field>}.
 */
final class WireObject {

    private final String where;
    private final Map<String, Object> fields;

    private WireObject(String where, Map<String, Object> fields) {
        this.where = where;
        this.fields = fields;
    }

    /**
     * Parses a whole line, which must hold one JSON object and nothing after it.
     *
     * @throws IOException              when the bytes are not JSON (a {@code JsonParseException}) or exceed the
     *                                  parser's limits
     * @throws IllegalArgumentException when the JSON is not an object
     */
    static WireObject parse(JsonFactory json, byte[] line, int length) throws IOException {
        try (JsonParser p = json.createParser(line, 0, length)) {
            JsonToken first = p.nextToken();
            if (first != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("a message is a JSON object, not " + describe(first));
            }
            Map<String, Object> fields = object(p);
            JsonToken after = p.nextToken();
            if (after != null) {
                throw new IllegalArgumentException("the line goes on after its JSON object (" + describe(after)
                        + "); was it two messages mixed?");
            }
            return new WireObject("message", fields);
        }
    }

    private static Map<String, Object> object(JsonParser p) throws IOException {
        Map<String, Object> fields = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            fields.put(name, value(p, p.nextToken()));
        }
        return fields;
    }

    private static Object value(JsonParser p, JsonToken token) throws IOException {
        return switch (token) {
            case START_OBJECT -> object(p);
            case START_ARRAY -> {
                List<Object> items = new ArrayList<>();
                for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
                    items.add(value(p, t));
                }
                yield items;
            }
            case VALUE_STRING -> p.getText();
            case VALUE_NUMBER_INT -> p.getNumberValue();
            case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            case VALUE_NULL -> null;
            default -> throw new IllegalArgumentException("unexpected " + token);
        };
    }

    private static String describe(JsonToken token) {
        if (token == null) {
            return "nothing";
        }
        return switch (token) {
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> "more JSON";
        };
    }

    /** The same fields, named {@code where} in messages (e.g. {@code build}, {@code build.job}). */
    WireObject named(String name) {
        return new WireObject(name, fields);
    }

    /** A string field, or null when absent or null. */
    String string(String name) {
        Object v = fields.get(name);
        if (v == null || v instanceof String) {
            return (String) v;
        }
        throw wrongType(name, "a string", v);
    }

    /** A whole-number field, or {@code absent} when absent; null is refused. */
    long number(String name, long absent) {
        if (!fields.containsKey(name)) {
            return absent;
        }
        Long n = optionalNumber(name);
        if (n == null) {
            throw new IllegalArgumentException(where + "." + name + " must be a number, not null");
        }
        return n;
    }

    /** A whole-number field, or null when absent or null. */
    Long optionalNumber(String name) {
        Object v = fields.get(name);
        if (v == null) {
            return null;
        }
        if ((v instanceof Integer || v instanceof Long)) {
            return ((Number) v).longValue();
        }
        if (v instanceof BigInteger) {
            throw new IllegalArgumentException(where + "." + name + " is out of range: " + v);
        }
        throw wrongType(name, "a whole number", v);
    }

    /** An int field, or null when absent or null. */
    Integer optionalInt(String name) {
        Long n = optionalNumber(name);
        if (n != null && n != n.intValue()) {
            throw new IllegalArgumentException(where + "." + name + " is out of range: " + n);
        }
        return n == null ? null : n.intValue();
    }

    /** An int field, or {@code absent} when absent. */
    int intNumber(String name, int absent) {
        long n = number(name, absent);
        if (n != (int) n) {
            throw new IllegalArgumentException(where + "." + name + " is out of range: " + n);
        }
        return (int) n;
    }

    /** An object field, or null when absent or null. */
    WireObject object(String name) {
        Object v = fields.get(name);
        if (v == null) {
            return null;
        }
        if (v instanceof Map<?, ?> m) {
            @SuppressWarnings("unchecked")
            Map<String, Object> map = (Map<String, Object>) m;
            return new WireObject(where + "." + name, map);
        }
        throw wrongType(name, "an object", v);
    }

    /** A list of strings, or null when absent or null; a null item is refused. */
    List<String> strings(String name) {
        return list(name, (item, i) -> {
            if (item instanceof String s) {
                return s;
            }
            throw wrongType(name + "[" + i + "]", "a string", item);
        });
    }

    /** A list of objects turned into values by {@code read}, or null when absent or null. */
    <T> List<T> objects(String name, Function<WireObject, T> read) {
        return list(name, (item, i) -> {
            if (item instanceof Map<?, ?> m) {
                @SuppressWarnings("unchecked")
                Map<String, Object> map = (Map<String, Object>) m;
                return read.apply(new WireObject(where + "." + name + "[" + i + "]", map));
            }
            throw wrongType(name + "[" + i + "]", "an object", item);
        });
    }

    /** An object of string values, or null when absent or null; a null value is refused. */
    Map<String, String> stringMap(String name) {
        WireObject o = object(name);
        if (o == null) {
            return null;
        }
        Map<String, String> map = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : o.fields.entrySet()) {
            if (e.getValue() == null) {
                throw new IllegalArgumentException("a list or map holds null: " + o.where + "." + e.getKey());
            }
            map.put(e.getKey(), o.string(e.getKey()));
        }
        return map;
    }

    private interface ItemReader<T> {
        T read(Object item, int index);
    }

    private <T> List<T> list(String name, ItemReader<T> reader) {
        Object v = fields.get(name);
        if (v == null) {
            return null;
        }
        if (!(v instanceof List<?> items)) {
            throw wrongType(name, "an array", v);
        }
        List<T> out = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            if (items.get(i) == null) {
                throw new IllegalArgumentException("a list or map holds null: " + where + "." + name + "[" + i + "]");
            }
            out.add(reader.read(items.get(i), i));
        }
        return out;
    }

    private IllegalArgumentException wrongType(String name, String expected, Object actual) {
        String found = actual instanceof String s ? "the string '" + s + "'"
                : actual instanceof Map ? "an object"
                : actual instanceof List ? "an array"
                : String.valueOf(actual);
        return new IllegalArgumentException(where + "." + name + " must be " + expected + ", not " + found);
    }
}
