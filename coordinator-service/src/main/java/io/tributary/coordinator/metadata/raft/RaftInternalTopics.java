package io.tributary.coordinator.metadata.raft;

import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import io.tributary.coordinator.group.streams.InternalTopicCreator;
import io.tributary.coordinator.group.streams.StreamsTopology.InternalTopic;
import io.tributary.coordinator.metadata.MetadataCommand;
import io.tributary.coordinator.metadata.MetadataException;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.TopicConfigs;
import io.tributary.coordinator.placement.ReplicaPlacer;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates streams groups' internal topics through the metadata Raft log, as the control plane
 * creates any topic: placed by {@link ReplicaPlacer} on this voter's image, one {@link
 * MetadataCommand.CreateTopics} each, only on the leader. A topology's replication factor 0 is
 * {@code defaultReplicationFactor}; its topic configs are kept where Tributary knows them ({@link
 * TopicConfigs}) and the others dropped (logged once at INFO per topic: Kafka Streams sends
 * {@code cleanup.policy}, {@code retention.ms}, {@code segment.bytes} and {@code
 * message.timestamp.type}, which it knows).
 *
 * <p>A topic whose creation failed (too few brokers for its replication factor, no quorum) is not
 * tried again for {@link #RETRY_AFTER}: the groups' heartbeats ask for it several times a second.
 *
 * <p>Thread-safety: {@link #create} is synchronized (one creation at a time; it blocks for the Raft
 * write).
 */
public final class RaftInternalTopics implements InternalTopicCreator {

    private static final Logger log = LoggerFactory.getLogger(RaftInternalTopics.class);

    /** How long a topic whose creation failed waits before it is tried again. */
    public static final Duration RETRY_AFTER = Duration.ofSeconds(5);

    private final GroupStateWriter writer;
    private final short defaultReplicationFactor;
    private final InstantSource clock;
    private final Map<String, Long> failedAtMs = new HashMap<>();

    public RaftInternalTopics(
            MetadataRaftNode node, MetadataClient client, short defaultReplicationFactor, InstantSource clock) {
        this.writer =
                new GroupStateWriter(node.stateMachine(), client, node::isLeader, RaftOffsetStore.DEFAULT_APPLY_WAIT);
        if (defaultReplicationFactor < 1) {
            throw new IllegalArgumentException("defaultReplicationFactor must be 1 or more");
        }
        this.defaultReplicationFactor = defaultReplicationFactor;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public synchronized void create(List<InternalTopic> topics) {
        long now = clock.millis();
        for (InternalTopic topic : topics) {
            Long failed = failedAtMs.get(topic.name());
            if (failed != null && now - failed < RETRY_AFTER.toMillis()) {
                continue;
            }
            MetadataImage image = writer.image();
            if (image.topics().containsKey(topic.name())) {
                failedAtMs.remove(topic.name());
                continue;
            }
            try {
                MetadataImage.checkTopicName(topic.name());
                int replicationFactor =
                        topic.replicationFactor() > 0 ? topic.replicationFactor() : defaultReplicationFactor;
                List<List<Integer>> replicas = ReplicaPlacer.place(image, topic.partitions(), replicationFactor);
                writer.write(
                        new MetadataCommand.CreateTopics(List.of(new MetadataCommand.NewTopic(
                                topic.name(), UUID.randomUUID(), replicas, knownConfigs(topic)))),
                        "internal topic " + topic.name());
                failedAtMs.remove(topic.name());
                log.info(
                        "created internal topic {} ({} partitions, replication factor {})",
                        topic.name(),
                        topic.partitions(),
                        replicationFactor);
            } catch (MetadataException | OffsetStoreException e) {
                failedAtMs.put(topic.name(), now);
                log.warn("could not create internal topic {}: {}", topic.name(), e.getMessage());
            }
        }
        failedAtMs.values().removeIf(at -> now - at >= RETRY_AFTER.toMillis());
    }

    /** The topology's configs Tributary knows, normalized; the others dropped. */
    private static SortedMap<String, String> knownConfigs(InternalTopic topic) {
        SortedMap<String, String> known = new TreeMap<>();
        List<String> keys = TopicConfigs.keys();
        topic.configs().forEach((key, value) -> {
            if (!keys.contains(key)) {
                log.info(
                        "internal topic {}: config {}={} is not a Tributary topic config, dropped",
                        topic.name(),
                        key,
                        value);
                return;
            }
            try {
                known.put(key, TopicConfigs.normalize(key, value));
            } catch (MetadataException e) {
                log.info("internal topic {}: config {}={} dropped: {}", topic.name(), key, value, e.getMessage());
            }
        });
        return known;
    }
}
