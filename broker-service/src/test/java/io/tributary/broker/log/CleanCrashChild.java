package io.tributary.broker.log;

import ch.qos.logback.classic.Level;
import io.tributary.broker.log.cleaner.CleanResult;
import io.tributary.broker.log.cleaner.Cleaner;
import io.tributary.broker.log.cleaner.CleanerConfig;
import io.tributary.broker.log.cleaner.IoThrottle;
import io.tributary.broker.log.index.IndexStore;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.LoggerFactory;

/**
 * The child process of {@link CleanCrashTest}: opens a new log, appends {@link CleanCrashWorkload},
 * flushes, runs one cleaning pass with a {@link SwapObserver} that prints {@code STEP <n> <step>
 * <file name>} after each file operation and, at step {@code <crash step>}, prints {@code PAUSED
 * <n>} and blocks reading stdin until the parent kills it (SIGKILL); if stdin closes first it halts
 * (no shutdown hooks, no flush). With crash step 0 it finishes the pass, prints {@code CLEANED
 * <outcome> <checkpoint>}, lets the log's clock pass {@code file.delete.delay.ms}, deletes the
 * retired segments, closes the log and prints {@code DONE <files deleted>}.
 *
 * <p>Usage: {@code CleanCrashChild <data dir> <index dir> <crash step>}.
 */
public final class CleanCrashChild {

    private CleanCrashChild() {}

    public static void main(String[] args) throws IOException {
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
                .setLevel(Level.WARN);
        Path data = Path.of(args[0]);
        Path indexDir = Path.of(args[1]);
        int crashStep = Integer.parseInt(args[2]);
        PrintStream out = System.out;
        ManualClock clock = new ManualClock(CleanCrashWorkload.START_MS);
        IndexStore store = IndexStore.open(indexDir);
        PartitionLog log =
                PartitionLog.open(data, CleanCrashWorkload.PARTITION, CleanCrashWorkload.CONFIG, store, clock);
        for (MemoryRecords batch : CleanCrashWorkload.appends()) {
            if (batch == null) {
                log.roll();
            } else {
                log.appendAsLeader(batch, 0);
            }
        }
        log.flush();
        int[] steps = {0};
        SwapObserver observer = (step, file) -> {
            steps[0]++;
            out.println("STEP " + steps[0] + " " + step + " " + file.getFileName());
            out.flush();
            if (steps[0] == crashStep) {
                out.println("PAUSED " + steps[0]);
                out.flush();
                try {
                    System.in.read();
                } catch (IOException e) {
                    // The parent is gone: stop as a kill would.
                }
                Runtime.getRuntime().halt(3);
            }
        };
        Cleaner cleaner = new Cleaner(CleanerConfig.defaults(), clock, IoThrottle.unlimited(), () -> false, observer);
        CleanResult result = cleaner.clean(log, log.logEndOffset());
        out.println("CLEANED " + result.outcome() + " " + log.compaction().cleanerCheckpoint());
        clock.advance(CleanCrashWorkload.CONFIG.fileDeleteDelay().plus(Duration.ofMillis(1)));
        int deleted = log.deleteRetiredSegments();
        log.close();
        store.close();
        out.println("DONE " + deleted);
        out.flush();
    }
}
