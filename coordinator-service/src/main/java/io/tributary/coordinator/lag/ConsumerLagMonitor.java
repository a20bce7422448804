package io.tributary.coordinator.lag;

import io.tributary.coordinator.metadata.Broker;
import io.tributary.coordinator.metadata.CommittedOffset;
import io.tributary.coordinator.metadata.Endpoint;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.TopicPartition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Computes consumer lag per (group, topic), and per partition within it, from the committed offsets of the latest applied image and
 * the brokers' log end offsets, on the Raft leader only. {@link #refresh} is called on a schedule
 * (the app's refresh interval); {@link #lag} is the latest result.
 *
 * <p>Lag of a (group, topic) = sum over the topic's partitions with a committed offset of
 * max(0, log end offset − committed offset). At most {@code maxSeries} (group, topic) pairs are
 * reported, the first ones in (group, topic) order; the rest are left out (and that is logged),
 * because every pair is a time series in every scrape.
 *
 * <p>When the log end offsets cannot be learned at all, the previous result is kept for the groups
 * and topics that still have committed offsets (a broker hiccup does not make lag vanish and come
 * back), and pairs whose offsets were deleted are dropped.
 *
 * <p>Thread-safety: {@link #refresh} is called from one thread at a time; {@link #lag} from any (the
 * result is one volatile, immutable map).
 */
public final class ConsumerLagMonitor {

    /** One series: a group's lag on one topic. */
    public record Series(String group, String topic) implements Comparable<Series> {
        public Series {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(topic, "topic");
        }

        @Override
        public int compareTo(Series o) {
            int c = group.compareTo(o.group);
            return c != 0 ? c : topic.compareTo(o.topic);
        }
    }

    /** The listener name whose endpoints are used to reach brokers (the brokers' Kafka listener). */
    public static final String LISTENER = "PLAINTEXT";

    private static final Logger log = LoggerFactory.getLogger(ConsumerLagMonitor.class);

    private final Supplier<MetadataImage> images;
    private final BooleanSupplier isLeader;
    private final LogEndOffsets logEndOffsets;
    private final int maxSeries;
    private volatile SortedMap<Series, Long> lag = Collections.emptySortedMap();
    private volatile SortedMap<Series, SortedMap<Integer, Long>> partitionLag = Collections.emptySortedMap();
    private boolean truncationLogged;

    /**
     * @param images this voter's latest applied image
     * @param isLeader whether this voter leads (only the leader reports lag)
     * @param logEndOffsets where log end offsets come from
     * @param maxSeries the most (group, topic) series reported
     */
    public ConsumerLagMonitor(
            Supplier<MetadataImage> images, BooleanSupplier isLeader, LogEndOffsets logEndOffsets, int maxSeries) {
        if (maxSeries < 0) {
            throw new IllegalArgumentException("maxSeries must be 0 or more, got " + maxSeries);
        }
        this.images = Objects.requireNonNull(images, "images");
        this.isLeader = Objects.requireNonNull(isLeader, "isLeader");
        this.logEndOffsets = Objects.requireNonNull(logEndOffsets, "logEndOffsets");
        this.maxSeries = maxSeries;
    }

    /** The latest lag per (group, topic), in series order (unmodifiable; empty on a follower). */
    public SortedMap<Series, Long> lag() {
        return lag;
    }

    /**
     * The latest lag per partition of each reported (group, topic) series: partition index to
     * max(0, log end offset − committed offset), for the partitions whose log end is known. Same
     * series as {@link #lag()} (so bounded by {@code maxSeries} topics); empty on a follower.
     */
    public SortedMap<Series, SortedMap<Integer, Long>> partitionLag() {
        return partitionLag;
    }

    /** Recomputes the lag and returns it. */
    public SortedMap<Series, Long> refresh() {
        if (!isLeader.getAsBoolean()) {
            lag = Collections.emptySortedMap();
            partitionLag = Collections.emptySortedMap();
            return lag;
        }
        MetadataImage image = images.get();
        SortedMap<String, SortedMap<TopicPartition, CommittedOffset>> groups =
                image.committedOffsets().asMap();
        SortedMap<Series, List<Map.Entry<TopicPartition, CommittedOffset>>> series = new TreeMap<>();
        for (var group : groups.entrySet()) {
            for (var offset : group.getValue().entrySet()) {
                series.computeIfAbsent(
                                new Series(group.getKey(), offset.getKey().topic()), s -> new ArrayList<>())
                        .add(offset);
            }
        }
        if (series.size() > maxSeries) {
            if (!truncationLogged) {
                log.warn(
                        "consumer lag: {} (group, topic) series, only the first {} are reported"
                                + " (tributary.coordinator.lag.max-series)",
                        series.size(),
                        maxSeries);
                truncationLogged = true;
            }
            SortedMap<Series, List<Map.Entry<TopicPartition, CommittedOffset>>> kept = new TreeMap<>();
            for (var e : series.entrySet()) {
                if (kept.size() == maxSeries) {
                    break;
                }
                kept.put(e.getKey(), e.getValue());
            }
            series = kept;
        }
        if (series.isEmpty()) {
            lag = Collections.emptySortedMap();
            partitionLag = Collections.emptySortedMap();
            return lag;
        }
        Set<TopicPartition> partitions = new HashSet<>();
        series.values().forEach(offsets -> offsets.forEach(e -> partitions.add(e.getKey())));
        Map<TopicPartition, Long> ends;
        try {
            ends = logEndOffsets.latest(bootstrapServers(image), partitions);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return lag;
        } catch (Exception e) {
            log.debug("consumer lag: log end offsets unavailable: {}", e.getMessage());
            SortedMap<Series, Long> kept = new TreeMap<>(lag);
            kept.keySet().retainAll(series.keySet());
            lag = Collections.unmodifiableSortedMap(kept);
            SortedMap<Series, SortedMap<Integer, Long>> keptPartitions = new TreeMap<>(partitionLag);
            keptPartitions.keySet().retainAll(series.keySet());
            partitionLag = Collections.unmodifiableSortedMap(keptPartitions);
            return lag;
        }
        SortedMap<Series, Long> next = new TreeMap<>();
        SortedMap<Series, SortedMap<Integer, Long>> nextPartitions = new TreeMap<>();
        for (var e : series.entrySet()) {
            long sum = 0;
            SortedMap<Integer, Long> perPartition = new TreeMap<>();
            for (var offset : e.getValue()) {
                Long end = ends.get(offset.getKey());
                if (end != null) {
                    long partitionLagValue = Math.max(0, end - offset.getValue().offset());
                    perPartition.put(offset.getKey().partition(), partitionLagValue);
                    sum += partitionLagValue;
                }
            }
            if (!perPartition.isEmpty()) {
                next.put(e.getKey(), sum);
                nextPartitions.put(e.getKey(), Collections.unmodifiableSortedMap(perPartition));
            }
        }
        lag = Collections.unmodifiableSortedMap(next);
        partitionLag = Collections.unmodifiableSortedMap(nextPartitions);
        return lag;
    }

    /** The live brokers' {@link #LISTENER} endpoints as {@code host:port}, in broker id order. */
    static List<String> bootstrapServers(MetadataImage image) {
        List<String> servers = new ArrayList<>();
        for (Broker b : image.liveBrokers()) {
            b.endpoints().stream()
                    .filter(e -> e.listener().equals(LISTENER))
                    .findFirst()
                    .or(() -> b.endpoints().stream().findFirst())
                    .map(ConsumerLagMonitor::hostPort)
                    .ifPresent(servers::add);
        }
        return servers;
    }

    private static String hostPort(Endpoint e) {
        return e.host().contains(":") ? "[" + e.host() + "]:" + e.port() : e.host() + ":" + e.port();
    }
}
