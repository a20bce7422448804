package io.tributary.systemtests;

import java.util.List;
import java.util.Map;

/**
 * JSON text written by the tests' tools: {@code bin/bench-gateway}'s raw results ({@code
 * bench.GatewayBench}; the file {@code bin/bench-ratios} reads to recompute the ratios {@code
 * docs/benchmarks.md} states) and the chaos suite's history lines ({@code chaos.HistoryWriter}). The
 * load generator runs on {@code kafka-peer/target/kafka-libs} alone, so this is a writer of its own
 * rather than a library's: a value is a {@link Map} with string
 * keys (written in its iteration order, so a {@code LinkedHashMap} keeps the reader's order), a {@link
 * List}, a {@link CharSequence}, a {@link Number}, a {@link Boolean} or {@code null}. A number that is
 * not finite (NaN, an infinity: a rate over zero seconds) is written as {@code null}, which JSON can
 * carry, rather than as a token no reader accepts. Stateless and thread-safe.
 */
public final class JsonText {

    private JsonText() {}

    /** {@code value} as JSON text, objects and lists indented by two spaces per level. */
    public static String write(Object value) {
        var out = new StringBuilder();
        write(value, out, "");
        return out.append('\n').toString();
    }

    private static void write(Object value, StringBuilder out, String indent) {
        switch (value) {
            case null -> out.append("null");
            case Map<?, ?> map -> writeObject(map, out, indent);
            case List<?> list -> writeList(list, out, indent);
            case CharSequence text -> out.append(quote(text.toString()));
            case Boolean bool -> out.append(bool);
            case Double d when !Double.isFinite(d) -> out.append("null");
            case Float f when !Float.isFinite(f) -> out.append("null");
            case Number number -> out.append(number);
            default ->
                throw new IllegalArgumentException(
                        "not a JSON value: " + value.getClass().getName());
        }
    }

    private static void writeObject(Map<?, ?> map, StringBuilder out, String indent) {
        if (map.isEmpty()) {
            out.append("{}");
            return;
        }
        String inner = indent + "  ";
        out.append("{\n");
        boolean first = true;
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            if (!(entry.getKey() instanceof String key)) {
                throw new IllegalArgumentException("a JSON object's keys are strings, got " + entry.getKey());
            }
            out.append(first ? "" : ",\n").append(inner);
            out.append(quote(key));
            out.append(": ");
            write(entry.getValue(), out, inner);
            first = false;
        }
        out.append('\n').append(indent).append('}');
    }

    private static void writeList(List<?> list, StringBuilder out, String indent) {
        if (list.isEmpty()) {
            out.append("[]");
            return;
        }
        String inner = indent + "  ";
        out.append("[\n");
        for (int i = 0; i < list.size(); i++) {
            out.append(i == 0 ? "" : ",\n").append(inner);
            write(list.get(i), out, inner);
        }
        out.append('\n').append(indent).append(']');
    }

    /**
     * {@code text} as a JSON string literal, quote, backslash and every control character escaped (RFC
     * 8259, section 7), or {@code null} for null.
     */
    public static String quote(String text) {
        if (text == null) {
            return "null";
        }
        var out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u%04x".formatted((int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
