package io.tributary.systemtests.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.stream.Collectors;

/**
 * {@link GroupBench}'s raw results: {@code results.csv}, one line per case, target and round (from
 * 1; {@code bin/bench-ratios} would take a round 0 for a warm-up), every figure of the case in its column and empty where the case has none or
 * failed; the file {@code bin/bench-ratios} reads ({@code CASE.TARGET.COLUMN} is the median over the
 * rounds from 1). A line is written as soon as its case ends, so a run that fails later keeps what
 * it measured. Not thread-safe: the bench's main thread alone writes.
 */
final class GroupBenchResults {

    /** The columns, in order (docs/benchmarks.md, "Classic groups", says what each holds). */
    static final List<String> COLUMNS = List.of(
            "case",
            "target",
            "round",
            "members",
            "rebalance_ms",
            "noticed_ms",
            "after_noticed_ms",
            "callbacks_ms",
            "generations",
            "after_expiry_ms",
            "heartbeat_age_ms",
            "records",
            "seconds",
            "records_per_s",
            "mb_per_s",
            "formation_ms",
            "max_gap_ms",
            "min_gap_ms",
            "baseline_gap_ms",
            "new_leader_ms",
            "callbacks_after",
            "joins_after",
            "commit_failures",
            "redelivered",
            "skipped",
            "error");

    private final Path csv;
    private final List<Map<String, String>> rows = new ArrayList<>();

    GroupBenchResults(Path csv) throws IOException {
        this.csv = csv;
        if (!Files.exists(csv) || Files.size(csv) == 0) {
            Files.writeString(csv, String.join(",", COLUMNS) + "\n");
        }
    }

    /** A row of {@code caseName} for {@code target} in {@code round}; fill it, then {@link #write}. */
    static Map<String, String> row(String caseName, String target, int round) {
        Map<String, String> row = new LinkedHashMap<>();
        row.put("case", caseName);
        row.put("target", target);
        row.put("round", Integer.toString(round));
        return row;
    }

    static void put(Map<String, String> row, String column, double value, int decimals) {
        if (!COLUMNS.contains(column)) {
            throw new IllegalArgumentException("no column " + column);
        }
        row.put(column, String.format(Locale.ROOT, "%." + decimals + "f", value));
    }

    static void put(Map<String, String> row, String column, long value) {
        if (!COLUMNS.contains(column)) {
            throw new IllegalArgumentException("no column " + column);
        }
        row.put(column, Long.toString(value));
    }

    /** Appends the row to the CSV (an error text loses its commas and newlines). */
    void write(Map<String, String> row) throws IOException {
        rows.add(row);
        String line = COLUMNS.stream()
                .map(c -> row.getOrDefault(c, "").replaceAll("[,\\r\\n]+", " "))
                .collect(Collectors.joining(","));
        Files.writeString(csv, line + "\n", StandardOpenOption.APPEND);
    }

    /** The median of {@code column} over the measured rounds (1 and later) of this run's rows, if any has it. */
    OptionalDouble median(String caseName, String target, String column) {
        List<Double> values = rows.stream()
                .filter(r -> r.get("case").equals(caseName)
                        && r.get("target").equals(target)
                        && Integer.parseInt(r.get("round")) > 0
                        && !r.getOrDefault(column, "").isEmpty())
                .map(r -> Double.parseDouble(r.get(column)))
                .sorted()
                .toList();
        if (values.isEmpty()) {
            return OptionalDouble.empty();
        }
        int n = values.size();
        return OptionalDouble.of(n % 2 == 1 ? values.get(n / 2) : (values.get(n / 2 - 1) + values.get(n / 2)) / 2);
    }

    /** A median as text with {@code decimals}, or "-". */
    String medianText(String caseName, String target, String column, int decimals) {
        OptionalDouble m = median(caseName, target, column);
        return m.isPresent() ? String.format(Locale.ROOT, "%." + decimals + "f", m.getAsDouble()) : "-";
    }

    /** The ratio of two medians (Tributary over Kafka), or "-". */
    String ratioText(String caseName, String column) {
        OptionalDouble t = median(caseName, "tributary", column);
        OptionalDouble k = median(caseName, "kafka", column);
        if (t.isEmpty() || k.isEmpty() || k.getAsDouble() == 0) {
            return "-";
        }
        return String.format(Locale.ROOT, "%.2f", t.getAsDouble() / k.getAsDouble());
    }

    /** Every value of {@code column} of the case's measured rounds, in round order, as text. */
    String valuesText(String caseName, String target, String column) {
        return rows.stream()
                .filter(r -> r.get("case").equals(caseName)
                        && r.get("target").equals(target)
                        && Integer.parseInt(r.get("round")) > 0)
                .map(r -> r.getOrDefault(column, "").isEmpty() ? "-" : r.get(column))
                .collect(Collectors.joining(", "));
    }
}
