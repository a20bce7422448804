package io.tributary.coordinator.group;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.types.SchemaException;

/**
 * The {@code consumer} embedded protocol's bytes (kafka-clients' {@code ConsumerProtocol}: a
 * version, then a subscription or an assignment) as the consumer group coordinator reads and writes
 * them for its classic members: the subscription of a JoinGroup (topics, rack, owned partitions),
 * the assignment a classic group handed out (read on an upgrade), the member's assignment written
 * for a SyncGroup answer in the version of the member's subscription (so old clients read it).
 * Topics are named here and resolved to ids through a {@link TopicView}; a topic that does not
 * resolve is left out.
 *
 * <p>Stateless.
 */
final class ConsumerProtocolBytes {

    /** The newest assignment version kafka-clients 4.x writes and reads. */
    private static final short MAX_ASSIGNMENT_VERSION = 3;

    private ConsumerProtocolBytes() {}

    /** A JoinGroup's subscription: topics by name, rack, the partitions the member says it owns. */
    record Subscription(List<String> topics, Optional<String> rackId, SortedSet<TopicIdPartition> owned) {}

    /**
     * Reads a subscription.
     *
     * @throws GroupException INCONSISTENT_GROUP_PROTOCOL when the bytes are not a {@code consumer}
     *     protocol subscription
     */
    static Subscription subscription(byte[] metadata, TopicView topics) {
        try {
            ConsumerPartitionAssignor.Subscription s =
                    ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(metadata));
            return new Subscription(List.copyOf(s.topics()), s.rackId(), resolve(s.ownedPartitions(), topics));
        } catch (SchemaException | IllegalArgumentException | java.nio.BufferUnderflowException e) {
            throw new GroupException(
                    Errors.INCONSISTENT_GROUP_PROTOCOL, "a subscription that is not the consumer protocol's: " + e);
        }
    }

    /** Whether {@code metadata} reads as a {@code consumer} protocol subscription. */
    static boolean isSubscription(byte[] metadata) {
        try {
            ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(metadata));
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * Reads an assignment a classic group's leader handed out (empty bytes: none).
     *
     * @throws IllegalArgumentException when the bytes are not a {@code consumer} protocol assignment
     * @throws UnsupportedOperationException when it carries user data (a custom assignor's, which
     *     a server-side assignment would lose)
     */
    static SortedSet<TopicIdPartition> assignment(byte[] bytes, TopicView topics) {
        if (bytes.length == 0) {
            return new TreeSet<>();
        }
        ConsumerPartitionAssignor.Assignment assignment;
        try {
            assignment = ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(bytes));
        } catch (SchemaException | java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("not a consumer protocol assignment: " + e, e);
        }
        if (assignment.userData() != null && assignment.userData().hasRemaining()) {
            throw new UnsupportedOperationException("the assignment carries user data of a custom assignor");
        }
        return resolve(assignment.partitions(), topics);
    }

    /**
     * Writes an assignment for a member whose subscription is {@code subscription}, in that
     * subscription's version (at most the newest assignment version).
     */
    static byte[] assignment(SortedSet<TopicIdPartition> partitions, byte[] subscription, TopicView topics) {
        List<TopicPartition> named = new ArrayList<>();
        for (TopicIdPartition partition : partitions) {
            topics.byId(partition.topicId())
                    .ifPresent(info -> named.add(new TopicPartition(info.name(), partition.partition())));
        }
        short version = MAX_ASSIGNMENT_VERSION;
        try {
            version = (short) Math.min(ConsumerProtocol.deserializeVersion(ByteBuffer.wrap(subscription)), version);
        } catch (RuntimeException e) {
            // an unreadable subscription was refused at its join; the newest version then
        }
        ByteBuffer bytes =
                ConsumerProtocol.serializeAssignment(new ConsumerPartitionAssignor.Assignment(named), version);
        byte[] out = new byte[bytes.remaining()];
        bytes.get(out);
        return out;
    }

    private static SortedSet<TopicIdPartition> resolve(List<TopicPartition> partitions, TopicView topics) {
        SortedSet<TopicIdPartition> resolved = new TreeSet<>();
        for (TopicPartition partition : partitions) {
            topics.byName(partition.topic())
                    .filter(info -> partition.partition() >= 0 && partition.partition() < info.partitionCount())
                    .ifPresent(info -> resolved.add(new TopicIdPartition(info.id(), partition.partition())));
        }
        return resolved;
    }
}
