package io.tributary.systemtests.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a history file written by {@link HistoryWriter}: one flat JSON object per line (string,
 * integer and null values only). A last line cut by a crash (no closing brace) is ignored; any
 * other malformed line is an error.
 */
public final class HistoryReader {

    private HistoryReader() {}

    public static List<Operation> read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<Operation> events = new ArrayList<>(lines.size());
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) {
                continue;
            }
            if (i == lines.size() - 1 && !line.endsWith("}")) {
                break; // cut by a crash while writing
            }
            events.add(parse(line));
        }
        return events;
    }

    static Operation parse(String line) {
        Map<String, String> fields = fields(line);
        return new Operation(
                fields.get("process"),
                Operation.Type.valueOf(fields.get("type")),
                Operation.Phase.valueOf(fields.get("phase")),
                Integer.parseInt(fields.get("partition")),
                Long.parseLong(fields.get("offset")),
                fields.get("value"),
                Integer.parseInt(fields.get("epoch")),
                Long.parseLong(fields.get("nanos")),
                fields.get("error"));
    }

    private static Map<String, String> fields(String line) {
        Map<String, String> fields = new HashMap<>();
        int[] pos = {0};
        expect(line, pos, '{');
        skipSpace(line, pos);
        if (peek(line, pos) == '}') {
            return fields;
        }
        while (true) {
            skipSpace(line, pos);
            String key = string(line, pos);
            skipSpace(line, pos);
            expect(line, pos, ':');
            skipSpace(line, pos);
            String value;
            if (peek(line, pos) == '"') {
                value = string(line, pos);
            } else {
                int start = pos[0];
                while (pos[0] < line.length() && ",} ".indexOf(line.charAt(pos[0])) < 0) {
                    pos[0]++;
                }
                String literal = line.substring(start, pos[0]);
                value = literal.equals("null") ? null : literal;
            }
            fields.put(key, value);
            skipSpace(line, pos);
            char next = line.charAt(pos[0]++);
            if (next == '}') {
                return fields;
            }
            if (next != ',') {
                throw new IllegalArgumentException("expected , or } at " + (pos[0] - 1) + " in " + line);
            }
        }
    }

    private static String string(String line, int[] pos) {
        expect(line, pos, '"');
        var b = new StringBuilder();
        while (true) {
            char c = line.charAt(pos[0]++);
            if (c == '"') {
                return b.toString();
            }
            if (c == '\\') {
                char e = line.charAt(pos[0]++);
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'u' -> {
                        b.append((char) Integer.parseInt(line.substring(pos[0], pos[0] + 4), 16));
                        pos[0] += 4;
                    }
                    default -> b.append(e);
                }
            } else {
                b.append(c);
            }
        }
    }

    private static char peek(String line, int[] pos) {
        return line.charAt(pos[0]);
    }

    private static void skipSpace(String line, int[] pos) {
        while (pos[0] < line.length() && Character.isWhitespace(line.charAt(pos[0]))) {
            pos[0]++;
        }
    }

    private static void expect(String line, int[] pos, char c) {
        if (line.charAt(pos[0]) != c) {
            throw new IllegalArgumentException("expected " + c + " at " + pos[0] + " in " + line);
        }
        pos[0]++;
    }
}
