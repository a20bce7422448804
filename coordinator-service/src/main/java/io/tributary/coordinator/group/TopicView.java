package io.tributary.coordinator.group;

import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * The topics the group coordinator assigns: names, ids and partition counts, read from the
 * coordinator's current metadata image ({@link ImageTopicView}) or a test's fake. A topic created,
 * deleted or given more partitions changes what this returns, and the next heartbeat or tick of
 * every group subscribed to it computes a new target assignment.
 *
 * <p>Implementations are thread-safe.
 */
public interface TopicView {

    /**
     * A topic as the group coordinator sees it.
     *
     * @param name the topic's name
     * @param id the topic id
     * @param partitionCount how many partitions it has, at least 1
     */
    record TopicInfo(String name, UUID id, int partitionCount) {
        public TopicInfo {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(id, "id");
            if (partitionCount < 1) {
                throw new IllegalArgumentException("a topic has at least one partition, got " + partitionCount);
            }
        }
    }

    /** The topic with this name, if it exists. */
    Optional<TopicInfo> byName(String name);

    /** The topic with this id, if it exists. */
    Optional<TopicInfo> byId(UUID id);

    /** Every topic (for regular-expression subscriptions). */
    Collection<TopicInfo> all();
}
