package io.tributary.broker.log.cleaner;

import io.tributary.broker.log.CleanableSection;
import io.tributary.broker.log.PartitionLog;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
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
 * <p>When no log is dirty enough, a round cleans the log whose kept tombstones reached their delete
 * horizon first (the horizons are remembered from the passes, in memory: after a restart a log's
 * tombstones wait for its next pass), as Kafka cleans logs with expired tombstones.
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
    /** Per log, the earliest delete horizon of the tombstones its last pass kept. */
    private final Map<TopicIdPartition, Long> tombstoneHorizons = new ConcurrentHashMap<>();

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
        long nowMs = clock.millis();
        Optional<Map.Entry<Target, CleanableSection>> chosen =
                DirtiestLog.choose(candidates, Map.Entry::getValue, nowMs);
        boolean forTombstones = false;
        if (chosen.isEmpty()) {
            // No log is dirty enough: one whose kept tombstones reached their delete horizon.
            chosen = candidates.stream()
                    .filter(c -> tombstoneHorizons.getOrDefault(c.getKey().log().topicIdPartition(), Long.MAX_VALUE)
                            <= nowMs)
                    .min(Comparator.comparingLong(
                            c -> tombstoneHorizons.get(c.getKey().log().topicIdPartition())));
            forTombstones = true;
        }
        if (chosen.isEmpty()) {
            return Optional.empty();
        }
        Target target = chosen.get().getKey();
        TopicIdPartition partition = target.log().topicIdPartition();
        try {
            if (cleaner == null) {
                cleaner = new Cleaner(config, clock);
            }
            CleanResult result = forTombstones
                    ? cleaner.cleanTombstones(target.log(), target.highWatermark())
                    : cleaner.clean(target.log(), target.highWatermark());
            if (result.outcome() == CleanResult.Outcome.CLEANED) {
                if (result.earliestTombstoneHorizonMs().isPresent()) {
                    tombstoneHorizons.put(
                            partition, result.earliestTombstoneHorizonMs().getAsLong());
                } else {
                    tombstoneHorizons.remove(partition);
                }
            } else if (forTombstones) {
                tombstoneHorizons.remove(partition);
            }
            return Optional.of(result);
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
        tombstoneHorizons.remove(partition);
    }
}
