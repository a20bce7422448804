package io.tributary.gateway.table;

import io.tributary.gateway.problem.KafkaProblems;
import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a topic as a table: the latest record of every live key, as of an offset vector, in bounded
 * memory whatever the topic's size.
 *
 * <p>The vector ({@link #endOffsets}) is every partition's end offset (high watermark) taken once,
 * before anything is read. Each partition is then read from its log start up to its end in the vector
 * (records at or past it are ignored), in <em>scan windows</em>: slices of the keys by their {@link
 * KeyDigest} ({@link HashWindow}). For one window the partition is read twice:
 *
 * <ol>
 *   <li>the <em>digest scan</em> remembers, for each key of the window, the offset of its latest
 *       record ({@link KeyDigest} to offset); a tombstone (null value) forgets the key;
 *   <li>the <em>emit scan</em> hands to the sink each record of the window whose offset is the one
 *       remembered for its key: the latest record of each live key, once, in offset order.
 * </ol>
 *
 * <p>The digest map holds at most {@code maxKeys} keys. When a digest scan finds more, it stops, the
 * window is halved and scanned again; after an emit scan the next window is as wide as the windows
 * can be again. So memory is at most {@code maxKeys} entries (about 100 bytes each) plus one fetch
 * ({@code fetch.max.bytes} of the consumer), and a partition with {@code n} live keys is read about
 * {@code 2 n / maxKeys + 2} times. A partition that would need more than {@code maxScans} reads is
 * 422 {@code table-too-large} (the sink may have had part of the table by then). Records without a
 * key are not part of any table and are skipped.
 *
 * <p>Concurrent cleaning: the log cleaner may remove a key's latest record in the range between the
 * two scans when a newer record of that key was written after the vector was taken; that key is
 * then left out (counted in {@link Result#missedKeys}), and its newer record comes after the
 * vector, so a client that continues from the vector ends with the same table. Retention moving the
 * log start mid-scan makes the scan go on from the new start.
 *
 * <p>Not thread-safe: one reader per request, on one thread, with a consumer it has to itself.
 */
public final class TableReader {

    private static final Logger log = LoggerFactory.getLogger(TableReader.class);

    /** Takes one table record; false to stop (the client went away or is too slow). */
    @FunctionalInterface
    public interface Sink {
        boolean accept(ConsumerRecord<byte[], byte[]> record) throws IOException, InterruptedException;
    }

    /**
     * Bounds of one table read.
     *
     * @param maxKeys keys one digest scan of one partition remembers at most
     * @param maxScans reads of one partition (digest and emit scans, stopped ones too) at most
     * @param pollWait one poll of the consumer
     * @param clusterTimeout how long the cluster may give nothing (no fetch answered) before 503
     */
    public record Limits(int maxKeys, int maxScans, Duration pollWait, Duration clusterTimeout) {
        public Limits {
            if (maxKeys < 1 || maxScans < 2) {
                throw new IllegalArgumentException("maxKeys must be positive and maxScans at least 2");
            }
        }
    }

    /**
     * What a read did.
     *
     * @param records live keys handed to the sink
     * @param scans reads of partitions, all partitions together
     * @param missedKeys keys whose latest record was cleaned away between the scans (see the class)
     * @param mostKeysHeld the most keys a digest map held at once (at most {@code maxKeys})
     * @param complete false when the sink stopped the read
     */
    public record Result(long records, long scans, long missedKeys, int mostKeysHeld, boolean complete) {}

    private final Consumer<byte[], byte[]> consumer;
    private final Limits limits;

    public TableReader(Consumer<byte[], byte[]> consumer, Limits limits) {
        this.consumer = consumer;
        this.limits = limits;
    }

    /** The offset vector: each partition's end offset (high watermark) now. */
    public TreeMap<Integer, Long> endOffsets(String topic, List<Integer> partitions) {
        List<TopicPartition> tps = new ArrayList<>();
        partitions.forEach(p -> tps.add(new TopicPartition(topic, p)));
        try {
            Map<TopicPartition, Long> ends = consumer.endOffsets(tps, limits.clusterTimeout());
            TreeMap<Integer, Long> vector = new TreeMap<>();
            ends.forEach((tp, o) -> vector.put(tp.partition(), o));
            return vector;
        } catch (KafkaException e) {
            throw KafkaProblems.toProblem(e);
        }
    }

    /** Hands the table of {@code topic} as of {@code vector} to {@code sink}, partition by partition. */
    public Result read(String topic, SortedMap<Integer, Long> vector, Sink sink)
            throws IOException, InterruptedException {
        long records = 0;
        long scans = 0;
        long missed = 0;
        int mostKeys = 0;
        try {
            for (var e : vector.entrySet()) {
                PartitionRead p = new PartitionRead(new TopicPartition(topic, e.getKey()), e.getValue(), sink);
                boolean complete = p.run();
                records += p.emitted;
                scans += p.scans;
                missed += p.missed;
                mostKeys = Math.max(mostKeys, p.mostKeysHeld);
                if (!complete) {
                    return new Result(records, scans, missed, mostKeys, false);
                }
            }
        } catch (KafkaException e) {
            throw KafkaProblems.toProblem(e);
        } finally {
            consumer.assign(List.of());
        }
        return new Result(records, scans, missed, mostKeys, true);
    }

    /** One partition's windows, scans and counts. */
    private final class PartitionRead {
        private final TopicPartition tp;
        private final long end;
        private final Sink sink;
        private long emitted;
        private int scans;
        private long missed;
        private int mostKeysHeld;

        PartitionRead(TopicPartition tp, long end, Sink sink) {
            this.tp = tp;
            this.end = end;
            this.sink = sink;
        }

        boolean run() throws IOException, InterruptedException {
            HashWindow window = HashWindow.all();
            while (!window.isEnd()) {
                Map<KeyDigest, Long> latest = digestScan(window);
                if (latest == null) {
                    if (window.depth() == HashWindow.MAX_DEPTH) {
                        throw tooLarge();
                    }
                    window = window.split();
                    continue;
                }
                if (!latest.isEmpty() && !emitScan(window, latest)) {
                    return false;
                }
                missed += latest.size();
                if (!latest.isEmpty()) {
                    log.debug("Table of {}: {} keys' latest records were cleaned during the read", tp, latest.size());
                }
                window = window.next();
            }
            return true;
        }

        /** The latest offset of each live key of {@code window}; null when there are more than maxKeys. */
        private Map<KeyDigest, Long> digestScan(HashWindow window) throws IOException, InterruptedException {
            Map<KeyDigest, Long> latest = new HashMap<>();
            boolean fits = scan(r -> {
                KeyDigest d = KeyDigest.of(r.key());
                if (!window.contains(d)) {
                    return true;
                }
                if (r.value() == null) {
                    latest.remove(d);
                    return true;
                }
                if (!latest.containsKey(d) && latest.size() == limits.maxKeys()) {
                    return false; // one more key than the bound: a narrower window
                }
                latest.put(d, r.offset());
                mostKeysHeld = Math.max(mostKeysHeld, latest.size());
                return true;
            });
            return fits ? latest : null;
        }

        /** Hands each latest record of {@code window} to the sink, removing it from {@code latest}. */
        private boolean emitScan(HashWindow window, Map<KeyDigest, Long> latest)
                throws IOException, InterruptedException {
            return scan(r -> {
                if (r.value() == null) {
                    return true;
                }
                KeyDigest d = KeyDigest.of(r.key());
                Long offset = latest.get(d);
                if (offset == null || offset != r.offset() || !window.contains(d)) {
                    return true;
                }
                latest.remove(d);
                emitted++;
                return sink.accept(r);
            });
        }

        /**
         * Reads the partition from its log start to {@code end}, each keyed record to {@code each},
         * until {@code each} says false (then false).
         */
        private boolean scan(Sink each) throws IOException, InterruptedException {
            if (++scans > limits.maxScans()) {
                throw tooLarge();
            }
            consumer.assign(List.of()); // a fresh partition state: no high watermark of an earlier scan
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long quietSinceNs = System.nanoTime();
            while (consumer.position(tp, limits.clusterTimeout()) < end) {
                ConsumerRecords<byte[], byte[]> polled;
                try {
                    polled = consumer.poll(limits.pollWait());
                } catch (OffsetOutOfRangeException e) {
                    consumer.seekToBeginning(List.of(tp)); // retention moved the log start
                    continue;
                }
                if (polled.isEmpty()) {
                    OptionalLong lag = consumer.currentLag(tp);
                    if (lag.isPresent()) {
                        // The broker answered a fetch at this position with no record although its
                        // end is past it: what was there up to the end was cleaned away.
                        return true;
                    }
                    if (System.nanoTime() - quietSinceNs
                            > limits.clusterTimeout().toNanos()) {
                        throw new ProblemException(
                                ProblemType.CLUSTER_UNAVAILABLE,
                                "No fetch of %s was answered within %d ms."
                                        .formatted(tp, limits.clusterTimeout().toMillis()));
                    }
                    continue;
                }
                quietSinceNs = System.nanoTime();
                for (ConsumerRecord<byte[], byte[]> r : polled.records(tp)) {
                    if (r.offset() >= end) {
                        return true;
                    }
                    if (r.key() != null && !each.accept(r)) {
                        return false;
                    }
                }
            }
            return true;
        }

        private ProblemException tooLarge() {
            return new ProblemException(
                    ProblemType.TABLE_TOO_LARGE,
                    ("Partition %d of %s has too many live keys for a table of this gateway: reading it would take"
                                    + " more than %d scans of %d keys (tributary.gateway.table.max-scans and"
                                    + " max-keys). Ask for fewer partitions, or read the topic with the events"
                                    + " endpoint.")
                            .formatted(tp.partition(), tp.topic(), limits.maxScans(), limits.maxKeys()));
        }
    }
}
