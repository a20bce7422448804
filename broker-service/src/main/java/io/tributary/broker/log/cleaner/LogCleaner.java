package io.tributary.broker.log.cleaner;

import io.tributary.broker.log.CleanableSection;
import io.tributary.broker.log.PartitionLog;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicIdPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cleaner thread's rounds, as Kafka's {@code CleanerThread}: each round takes the cleanable
 * section of every log it is given, chooses the dirtiest due one ({@link DirtiestLog}), and runs
 * one {@link Cleaner} pass over it (a pass that finds its segments changed under it ends aborted,
 * and the log is tried again later). A log whose pass fails otherwise, and is not closed, is marked
 * <em>uncleanable</em>: logged, listed by {@link #uncleanablePartitions()}, and skipped by
 * later rounds until {@link #forget} (its partition left the broker); the other logs go on being
 * cleaned and the broker keeps running.
 *
 * <p>The offset map ({@link CleanerConfig#dedupeBufferBytes()}) is allocated at the first pass, so
 * a broker without compacted topics never pays for it.
 *
 * <p>Not thread-safe: one instance per cleaner thread ({@link #uncleanablePartitions()} may be read
 * from any thread). The scheduling (threads, {@code log.cleaner.backoff.ms}) is the caller's.
 */
public final class LogCleaner {

    private static final Logger log = LoggerFactory.getLogger(LogCleaner.class);

    /** A log the round may clean, and the offset below which it may (its high watermark). */
    public record Target(PartitionLog log, long highWatermark) {
        public Target {
            Objects.requireNonNull(log, "log");
        }
    }

    private final CleanerConfig config;
    private final InstantSource clock;
    private final Set<TopicIdPartition> uncleanable = ConcurrentHashMap.newKeySet();
    private Cleaner cleaner;

    public LogCleaner(CleanerConfig config, InstantSource clock) {
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** One round: one pass over the dirtiest due log of {@code targets}, if any is due. */
    public Optional<CleanResult> runRound(List<Target> targets) {
        List<Map.Entry<Target, CleanableSection>> candidates = new ArrayList<>();
        for (Target target : targets) {
            if (uncleanable.contains(target.log().topicIdPartition())) {
                continue;
            }
            try {
                candidates.add(Map.entry(target, target.log().cleanableSection(target.highWatermark())));
            } catch (IllegalStateException e) {
                log.debug("{}: skipped by the cleaner: {}", target.log().topicIdPartition(), e.getMessage());
            }
        }
        Optional<Map.Entry<Target, CleanableSection>> chosen =
                DirtiestLog.choose(candidates, Map.Entry::getValue, clock.millis());
        if (chosen.isEmpty()) {
            return Optional.empty();
        }
        Target target = chosen.get().getKey();
        TopicIdPartition partition = target.log().topicIdPartition();
        try {
            if (cleaner == null) {
                cleaner = new Cleaner(config, clock);
            }
            return Optional.of(cleaner.clean(target.log(), target.highWatermark()));
        } catch (RuntimeException e) {
            if (!target.log().holdsSegments(List.of())) {
                log.debug("{}: closed while cleaned", partition);
                return Optional.empty();
            }
            uncleanable.add(partition);
            log.error("{}: cleaning failed; the partition is marked uncleanable and skipped from now on", partition, e);
            return Optional.empty();
        }
    }

    /** The partitions whose cleaning failed, skipped by every round. */
    public Set<TopicIdPartition> uncleanablePartitions() {
        return Set.copyOf(uncleanable);
    }

    /** Forgets {@code partition}'s uncleanable mark (it was deleted or moved off the broker). */
    public void forget(TopicIdPartition partition) {
        uncleanable.remove(partition);
    }
}
