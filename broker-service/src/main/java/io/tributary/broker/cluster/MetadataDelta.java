package io.tributary.broker.cluster;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One answer of the coordinator's metadata long poll ({@code GET /internal/v1/metadata}).
 *
 * @param version the metadata version this answer brings the caller to
 * @param full true: the whole image, which replaces everything the caller has; false: only the
 *     brokers and topics changed since the caller's version, and the names of topics deleted
 * @param brokers brokers to add or replace
 * @param topics topics to add or replace
 * @param deletedTopics names of topics to remove (empty when {@code full})
 * @param scramCredentials every user's SCRAM credentials when they changed (and in a full answer),
 *     empty when they did not
 * @param acls every ACL when they changed (and in a full answer), empty when they did not
 * @param clientQuotas every client quota when they changed (and in a full answer), empty when not
 */
public record MetadataDelta(
        long version,
        boolean full,
        List<BrokerInfo> brokers,
        List<TopicInfo> topics,
        List<String> deletedTopics,
        Optional<ScramUsers> scramCredentials,
        Optional<ClusterAcls> acls,
        Optional<ClusterQuotas> clientQuotas) {

    public MetadataDelta {
        brokers = List.copyOf(brokers);
        topics = List.copyOf(topics);
        deletedTopics = List.copyOf(deletedTopics);
        Objects.requireNonNull(scramCredentials, "scramCredentials");
        Objects.requireNonNull(acls, "acls");
        Objects.requireNonNull(clientQuotas, "clientQuotas");
    }

    /** A delta that does not touch client quotas. */
    public MetadataDelta(
            long version,
            boolean full,
            List<BrokerInfo> brokers,
            List<TopicInfo> topics,
            List<String> deletedTopics,
            Optional<ScramUsers> scramCredentials,
            Optional<ClusterAcls> acls) {
        this(version, full, brokers, topics, deletedTopics, scramCredentials, acls, Optional.empty());
    }

    /** A delta that does not touch ACLs. */
    public MetadataDelta(
            long version,
            boolean full,
            List<BrokerInfo> brokers,
            List<TopicInfo> topics,
            List<String> deletedTopics,
            Optional<ScramUsers> scramCredentials) {
        this(version, full, brokers, topics, deletedTopics, scramCredentials, Optional.empty());
    }

    /** A delta that touches neither SCRAM credentials nor ACLs. */
    public MetadataDelta(
            long version, boolean full, List<BrokerInfo> brokers, List<TopicInfo> topics, List<String> deletedTopics) {
        this(version, full, brokers, topics, deletedTopics, Optional.empty());
    }

    /** True when a non-full answer changed nothing (the long poll timed out). */
    public boolean isEmpty() {
        return !full
                && brokers.isEmpty()
                && topics.isEmpty()
                && deletedTopics.isEmpty()
                && scramCredentials.isEmpty()
                && acls.isEmpty()
                && clientQuotas.isEmpty();
    }
}
