package io.tributary.broker.cluster;

import java.util.List;

/**
 * One answer of the coordinator's metadata long poll ({@code GET /internal/v1/metadata}).
 *
 * @param version the metadata version this answer brings the caller to
 * @param full true: the whole image, which replaces everything the caller has; false: only the
 *     brokers and topics changed since the caller's version, and the names of topics deleted
 * @param brokers brokers to add or replace
 * @param topics topics to add or replace
 * @param deletedTopics names of topics to remove (empty when {@code full})
 */
public record MetadataDelta(
        long version, boolean full, List<BrokerInfo> brokers, List<TopicInfo> topics, List<String> deletedTopics) {

    public MetadataDelta {
        brokers = List.copyOf(brokers);
        topics = List.copyOf(topics);
        deletedTopics = List.copyOf(deletedTopics);
    }

    /** True when a non-full answer changed nothing (the long poll timed out). */
    public boolean isEmpty() {
        return !full && brokers.isEmpty() && topics.isEmpty() && deletedTopics.isEmpty();
    }
}
