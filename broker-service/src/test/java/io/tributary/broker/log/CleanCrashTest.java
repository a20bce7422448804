package io.tributary.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.log.CleanCrashWorkload.Rec;
import io.tributary.broker.log.SwapObserver.Step;
import io.tributary.broker.log.cleaner.CleanResult;
import io.tributary.broker.log.cleaner.Cleaner;
import io.tributary.broker.log.cleaner.CleanerConfig;
import io.tributary.broker.log.index.IndexStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A crash at every file operation of a real cleaning pass, then recovery. A child JVM ({@link
 * CleanCrashChild}) appends {@link CleanCrashWorkload} to a new compacted log and cleans it; a
 * {@link SwapObserver} parks it after step {@code n} of the pass's file operations, and the parent
 * kills it there with SIGKILL ({@link Process#destroyForcibly}, SIGKILL on Linux). Killing a parked
 * child is deterministic and is a real kill (no shutdown hook, no flush, no close, open files and
 * RocksDB left as they are), so it is used for every step rather than {@code Runtime.halt}, which
 * leaves the same disk state (neither loses the page cache: a power cut, which would drop writes not
 * yet fsynced, is not simulated). Case 0 lets the pass finish.
 *
 * <p>The parent then opens the log (recovery) and checks it against the workload's own model: each
 * cleaned group's range holds either every original record (its swap was not committed: no {@code
 * .swap} rename among the steps done) or exactly what the pass keeps (it was), never a mix, never a
 * lost record the model keeps, never a removed one back; offsets are the original ones (each value
 * names its offset); reads by every offset land on the first surviving record at or after it; reads
 * by every record's timestamp find the first surviving record at or after it; the index agrees with
 * a scan ({@link IndexAudit}); no {@code .cleaned}, {@code .swap} or {@code .deleted} file is left.
 * Then a new pass finishes and leaves the fully cleaned log, and its retired files go once {@code
 * file.delete.delay.ms} has passed on the log's clock.
 */
class CleanCrashTest {

    /** The pass cleans the four closed segments in two groups of two. */
    private static final List<List<Long>> GROUPS = List.of(
            CleanCrashWorkload.segmentBases().subList(0, 3),
            CleanCrashWorkload.segmentBases().subList(2, 5));

    /** Every file operation of the pass, in order: {@link SwapObserver}'s steps for each group. */
    private static final List<Step> STEPS = steps();

    private static List<Step> steps() {
        List<Step> steps = new ArrayList<>();
        for (List<Long> group : GROUPS) {
            steps.addAll(List.of(
                    Step.CLEANED_WRITTEN,
                    Step.CLEANED_SYNCED,
                    Step.SWAP_RENAMED,
                    Step.SWAP_DIRECTORY_SYNCED,
                    Step.INDEX_REPLACED));
            for (int i = 0; i < group.size() - 1; i++) {
                steps.add(Step.ORIGINAL_RETIRED);
            }
            steps.addAll(List.of(Step.SWAP_INSTALLED, Step.INSTALL_DIRECTORY_SYNCED));
        }
        return List.copyOf(steps);
    }

    /** 0 (no crash), then every step. */
    static IntStream crashSteps() {
        return IntStream.rangeClosed(0, STEPS.size());
    }

    @TempDir
    Path dir;

    /** A line the child printed after a step. */
    private record StepLine(int number, Step step, String file) {}

    @ParameterizedTest(name = "crash after step {0}")
    @MethodSource("crashSteps")
    void recoveryKeepsTheOriginalsOrTheCleanedRangeAndTheIndexAnswers(int crashStep) throws Exception {
        Path data = dir.resolve("data");
        Path indexDir = dir.resolve("index");
        Path childErr = dir.resolve("child.err");
        String where = "crash after step " + crashStep + (crashStep == 0 ? "" : " (" + STEPS.get(crashStep - 1) + ")");
        Process child = new ProcessBuilder(
                        ProcessHandle.current()
                                .info()
                                .command()
                                .orElseThrow(() -> new AssertionError("no java command")),
                        "--enable-native-access=ALL-UNNAMED",
                        "-Xshare:auto",
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        System.getProperty("java.class.path"),
                        CleanCrashChild.class.getName(),
                        data.toString(),
                        indexDir.toString(),
                        Integer.toString(crashStep))
                .redirectError(childErr.toFile())
                .start();
        List<StepLine> done = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                lines.add(line);
                String[] parts = line.split(" ");
                if (parts[0].equals("STEP")) {
                    done.add(new StepLine(Integer.parseInt(parts[1]), Step.valueOf(parts[2]), parts[3]));
                } else if (parts[0].equals("PAUSED")) {
                    child.destroyForcibly();
                    break;
                }
            }
        } finally {
            if (!child.waitFor(60, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
        String childOutput = where + "; child printed " + lines + ", stderr: " + Files.readString(childErr);
        if (crashStep == 0) {
            assertThat(child.exitValue()).as(childOutput).isZero();
            assertThat(done.stream().map(StepLine::step).toList())
                    .as(childOutput + ": the steps enumerated are the pass's")
                    .isEqualTo(STEPS);
            assertThat(lines).as(childOutput).contains("DONE " + (CleanCrashWorkload.CLOSED_SEGMENTS));
        } else {
            assertThat(child.exitValue())
                    .as(childOutput + ": killed by SIGKILL")
                    .isEqualTo(128 + 9);
            assertThat(done).as(childOutput).hasSize(crashStep);
            assertThat(done.getLast().step()).as(childOutput).isEqualTo(STEPS.get(crashStep - 1));
        }

        TreeMap<Long, Rec> original = CleanCrashWorkload.records();
        TreeMap<Long, Rec> expected = new TreeMap<>(original);
        TreeMap<Long, Rec> fullyCleaned = new TreeMap<>(original);
        for (List<Long> group : GROUPS) {
            long from = group.getFirst();
            long to = group.getLast();
            SegmentSwap.Range range = new SegmentSwap.Range(from, to);
            TreeMap<Long, Rec> cleaned = CleanCrashWorkload.cleaned(original, from, to);
            assertThat(cleaned.size())
                    .as("the pass removes records of " + range)
                    .isLessThan(original.subMap(from, to).size());
            boolean committed = done.stream()
                    .anyMatch(s -> s.step() == Step.SWAP_RENAMED && s.file().equals(SegmentSwap.swapFileName(range)));
            replace(fullyCleaned, from, to, cleaned);
            if (committed || crashStep == 0) {
                replace(expected, from, to, cleaned);
            }
        }

        ManualClock clock = new ManualClock(CleanCrashWorkload.START_MS);
        try (IndexStore store = IndexStore.open(indexDir)) {
            PartitionLog log =
                    PartitionLog.open(data, CleanCrashWorkload.PARTITION, CleanCrashWorkload.CONFIG, store, clock);
            try {
                assertThat(onlySegmentFiles(log.directory()))
                        .as(where + ": files after opening")
                        .isTrue();
                checkAgainstModel(log, store, expected, where + ", recovered");

                CleanResult again = new Cleaner(CleanerConfig.defaults(), clock).clean(log, log.logEndOffset());
                assertThat(again.outcome())
                        .as(where + ": a pass after recovery")
                        .isIn(CleanResult.Outcome.CLEANED, CleanResult.Outcome.NOTHING_TO_CLEAN);
                assertThat(log.compaction().cleanerCheckpoint())
                        .as(where)
                        .isEqualTo(CleanCrashWorkload.segmentBases().getLast());
                checkAgainstModel(log, store, fullyCleaned, where + ", cleaned again");

                int retired = log.retiredSegments();
                assertThat(log.deleteRetiredSegments())
                        .as(where + ": nothing is due before the delay")
                        .isZero();
                clock.advance(CleanCrashWorkload.CONFIG.fileDeleteDelay());
                assertThat(log.deleteRetiredSegments())
                        .as(where + ": every retired file is due")
                        .isEqualTo(retired);
                assertThat(onlySegmentFiles(log.directory()))
                        .as(where + ": files after the delay")
                        .isTrue();
            } finally {
                log.close();
            }
        }
    }

    private static void replace(TreeMap<Long, Rec> records, long from, long to, TreeMap<Long, Rec> by) {
        records.subMap(from, to).clear();
        records.putAll(by);
    }

    private static void checkAgainstModel(
            PartitionLog log, IndexStore store, TreeMap<Long, Rec> expected, String where) {
        TreeMap<Long, String> wanted = new TreeMap<>();
        expected.forEach((offset, r) -> wanted.put(offset, r.contents()));
        assertThat(LogContents.records(log)).as(where + ": records by offset").isEqualTo(wanted);
        assertThat(log.logEndOffset())
                .as(where)
                .isEqualTo(CleanCrashWorkload.records().lastKey() + 1);
        assertThat(IndexAudit.violations(
                        log,
                        store.partition(
                                CleanCrashWorkload.PARTITION.topicId(), CleanCrashWorkload.PARTITION.partition())))
                .as(where + ": index vs scan")
                .isEmpty();
        for (Rec r : CleanCrashWorkload.records().values()) {
            Map.Entry<Long, Rec> next = expected.ceilingEntry(r.offset());
            assertThat(firstRecordReadFrom(log, r.offset()))
                    .as(where + ": a read from offset " + r.offset())
                    .isEqualTo(Optional.ofNullable(next).map(Map.Entry::getKey));
            // Timestamps increase with offsets: the first survivor at or after r's timestamp is the next survivor.
            assertThat(log.offsetForTimestamp(r.timestamp()).map(TimestampAndOffset::offset))
                    .as(where + ": a lookup of timestamp " + r.timestamp())
                    .isEqualTo(Optional.ofNullable(next).map(Map.Entry::getKey));
        }
    }

    /** The offset of the first record a consumer fetching from {@code offset} gets, if any. */
    private static Optional<Long> firstRecordReadFrom(PartitionLog log, long offset) {
        long from = offset;
        while (from < log.logEndOffset()) {
            long next = from;
            for (RecordBatch batch :
                    log.read(from, Integer.MAX_VALUE, Long.MAX_VALUE).records().batches()) {
                for (Record record : batch) {
                    if (record.offset() >= offset) {
                        return Optional.of(record.offset());
                    }
                }
                next = batch.nextOffset();
            }
            if (next == from) {
                break;
            }
            from = next;
        }
        return Optional.empty();
    }

    private static boolean onlySegmentFiles(Path partitionDir) throws IOException {
        try (Stream<Path> files = Files.list(partitionDir)) {
            return files.allMatch(
                    p -> LogSegment.parseBaseOffset(p.getFileName().toString()).isPresent());
        }
    }
}
