package io.tributary.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.systemtests.DebianTool.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docs/benchmarks.md} against the raw results it cites: {@code bin/bench-ratios --check}
 * (python3, which {@code bin/test} installs) recomputes every figure the doc marks ({@code <!--
 * ratio: A / B -->}, {@code <!-- figure: A -->}) from the run's file under {@code
 * docs/benchmarks/results/} and fails on any difference at the doc's rounding, on a missing file, on a
 * section that neither cites raw results nor says it is historical, and on a ratio or bold figure
 * without a marker. So the doc and the raw files cannot drift apart, and a figure typed by hand
 * cannot pass for a measured one. The other tests edit a copy of the doc (its links still resolve to
 * the real results) and show the check catches each edit: every cited figure changed by one unit in
 * its last digit, one at a time; a section's citation removed; a marker removed.
 */
class BenchmarkFiguresTest {

    private static final Pattern MARKER = Pattern.compile("<!--\\s*(ratio|figure|difference):[^>]*-->");
    private static final Pattern RATIO_MARKER = Pattern.compile("<!--\\s*ratio:[^>]*-->");
    /** A line of the check's report on one citation: "benchmarks.md:LINE [run] ...". */
    private static final Pattern CITED_LINE = Pattern.compile("^benchmarks\\.md:(\\d+) \\[", Pattern.MULTILINE);
    /** A problem the quiet check reports on an edited copy: "  /work/.../edit-N.md:LINE: ...". */
    private static final Pattern EDITED_COPY_PROBLEM = Pattern.compile("(edit-\\d+\\.md:\\d+): ");

    @TempDir
    Path work;

    private final Path root = HelmChart.repoRoot();
    private final Path doc = root.resolve("docs/benchmarks.md");

    @Test
    void everyFigureTheDocCitesIsWhatItsRawFileGives() throws IOException {
        Result result = check(doc);

        assertThat(result.exitCode()).as(result.output()).isZero();
        // Not a vacuous pass: the doc cites figures from each benchmark's raw results.
        assertThat(citedLines(result)).hasSizeGreaterThanOrEqualTo(20);
        assertThat(result.output())
                .contains("-storage]", "-kafka]", "-gateway]")
                .doesNotContain("MISMATCH");
    }

    @Test
    void changingAnyCitedFigureByOneInItsLastDigitFailsTheCheckAtThatLine()
            throws IOException, InterruptedException, ExecutionException {
        List<String> lines = Files.readAllLines(doc);
        // Every marker on a line the check cites from (the doc's own explanation of the format shows
        // markers too, outside any results section, where the check reads none).
        List<Integer> cited = citedLines(check(doc));
        List<int[]> markers = markers(lines).stream()
                .filter(marker -> cited.contains(marker[0] + 1))
                .toList();
        assertThat(markers).hasSizeGreaterThanOrEqualTo(20);
        // One copy per edited figure, all checked in one run: each copy must fail at its line.
        List<Path> copies = new ArrayList<>();
        for (int i = 0; i < markers.size(); i++) {
            int line = markers.get(i)[0];
            List<String> edited = new ArrayList<>(lines);
            edited.set(line, withLastDigitBeforeChanged(lines.get(line), markers.get(i)[1]));
            Path copy = work.resolve("edit-%d.md".formatted(i));
            Files.write(copy, edited);
            copies.add(copy);
        }

        // Hundreds of copies at about 30 ms each: split over the cores, one check per share.
        int shares = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
        List<Future<Result>> runs = new ArrayList<>();
        try (ExecutorService checks = Executors.newFixedThreadPool(shares)) {
            for (int share = 0; share < shares; share++) {
                List<Path> part = copies.subList(copies.size() * share / shares, copies.size() * (share + 1) / shares);
                if (!part.isEmpty()) {
                    runs.add(checks.submit(() -> check(true, part.toArray(Path[]::new))));
                }
            }
        }
        Set<String> reported = new HashSet<>();
        for (Future<Result> run : runs) {
            Result share = run.get();
            assertThat(share.exitCode()).as(share.output()).isEqualTo(1);
            Matcher m = EDITED_COPY_PROBLEM.matcher(share.output());
            while (m.find()) {
                reported.add(m.group(1));
            }
        }

        List<String> missed = new ArrayList<>();
        for (int i = 0; i < markers.size(); i++) {
            int line = markers.get(i)[0] + 1;
            if (!reported.contains("edit-%d.md:%d".formatted(i, line))) {
                missed.add("line %d, marker %d: '%s'"
                        .formatted(line, i, Files.readAllLines(copies.get(i)).get(line - 1)));
            }
        }
        assertThat(missed).as("edited figures the check did not catch").isEmpty();
    }

    @Test
    void aSectionWhoseRawResultsLineIsRemovedFailsTheCheck() throws IOException {
        List<String> lines = new ArrayList<>(Files.readAllLines(doc));
        int raw = firstIndex(lines, Pattern.compile("^Raw results:"));
        lines.remove(raw);
        Path copy = work.resolve("benchmarks.md");
        Files.write(copy, lines);

        Result result = check(copy);

        assertThat(result.exitCode()).as(result.output()).isEqualTo(1);
        assertThat(result.output()).contains("neither cites raw results nor says '**Historical'");
    }

    @Test
    void aRatioWhoseMarkerIsRemovedFailsTheCheck() throws IOException {
        List<String> lines = new ArrayList<>(Files.readAllLines(doc));
        int ratio = firstIndex(lines, Pattern.compile("^\\|.*<!--\\s*ratio:"));
        lines.set(ratio, RATIO_MARKER.matcher(lines.get(ratio)).replaceFirst(""));
        Path copy = work.resolve("benchmarks.md");
        Files.write(copy, lines);

        Result result = check(copy);

        assertThat(result.exitCode()).as(result.output()).isEqualTo(1);
        assertThat(result.output())
                .containsPattern("benchmarks.md:" + (ratio + 1) + ": a (ratio|bold figure) without a marker");
    }

    /** The line numbers (from 1) the check's report cites figures on. */
    private static List<Integer> citedLines(Result result) {
        List<Integer> lines = new ArrayList<>();
        Matcher m = CITED_LINE.matcher(result.output());
        while (m.find()) {
            lines.add(Integer.parseInt(m.group(1)));
        }
        return lines;
    }

    /** Each marker as {line index, start of the marker in the line}. */
    private static List<int[]> markers(List<String> lines) {
        List<int[]> markers = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = MARKER.matcher(lines.get(i));
            while (m.find()) {
                markers.add(new int[] {i, m.start()});
            }
        }
        return markers;
    }

    /** The line with the last digit before {@code end} one higher (a 9 becomes 8: no carry). */
    private static String withLastDigitBeforeChanged(String line, int end) {
        for (int i = end - 1; i >= 0; i--) {
            char c = line.charAt(i);
            if (Character.isDigit(c)) {
                char changed = c == '9' ? '8' : (char) (c + 1);
                return line.substring(0, i) + changed + line.substring(i + 1);
            }
        }
        throw new IllegalStateException("no digit before the marker in: " + line);
    }

    private static int firstIndex(List<String> lines, Pattern pattern) {
        for (int i = 0; i < lines.size(); i++) {
            if (pattern.matcher(lines.get(i)).find()) {
                return i;
            }
        }
        throw new IllegalStateException("docs/benchmarks.md has no line matching " + pattern);
    }

    /** {@code bin/bench-ratios --check} on each of {@code docs}, their links resolved from {@code docs/}. */
    private Result check(Path... docs) {
        return check(false, docs);
    }

    /**
     * The check, {@code quiet} printing only the problems: hundreds of copies would otherwise print
     * every citation of each (about 100 KB a copy).
     */
    private Result check(boolean quiet, Path... docs) {
        List<String> command = new ArrayList<>(
                List.of("python3", root.resolve("bin/bench-ratios").toString(), "--check"));
        if (quiet) {
            command.add("--quiet");
        }
        for (Path markdown : docs) {
            command.add("--doc");
            command.add(markdown.toString());
        }
        command.add("--base");
        command.add(root.resolve("docs").toString());
        return DebianTool.run(root, work, "python3", command);
    }
}
