package io.tributary.systemtests.kafka;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * What the sink's files hold: the distinct numbers, how many lines in all, and the lines that
 * are no number (a line still being written, without its newline, is not read yet).
 */
record SinkDelivery(Set<Long> numbers, long lines, List<String> malformed) {

    static final SinkDelivery NOTHING = new SinkDelivery(Set.of(), 0, List.of());

    static SinkDelivery read(Path dir) throws IOException {
        Set<Long> numbers = new TreeSet<>();
        List<String> malformed = new ArrayList<>();
        long lines = 0;
        if (!Files.isDirectory(dir)) {
            return new SinkDelivery(numbers, 0, malformed);
        }
        List<Path> files;
        try (Stream<Path> listing = Files.list(dir)) {
            files = listing.sorted().toList();
        }
        for (Path file : files) {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            int complete = text.lastIndexOf('\n') + 1;
            for (String line : text.substring(0, complete).split("\n", -1)) {
                if (line.isEmpty()) {
                    continue;
                }
                lines++;
                try {
                    numbers.add(Long.parseLong(line));
                } catch (NumberFormatException e) {
                    malformed.add(line);
                }
            }
        }
        return new SinkDelivery(numbers, lines, malformed);
    }

    /** Distinct numbers delivered, of those expected, and anything else (no line count: duplicates vary). */
    String summary(Set<Long> expected) {
        Set<Long> unexpected = new TreeSet<>(numbers);
        unexpected.removeAll(expected);
        Set<Long> missing = new TreeSet<>(expected);
        missing.removeAll(numbers);
        return numbers.size() + " distinct of " + expected.size() + " expected, missing " + missing.size()
                + ", unexpected " + unexpected.size() + ", malformed lines " + malformed.size();
    }
}
