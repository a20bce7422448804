package io.tributary.broker.cluster;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * An immutable snapshot of the cluster metadata at one version. A broker replaces its image whole
 * with {@link #apply} on every change; readers take the current one and never see it change.
 *
 * @param version the coordinators' metadata version, -1 before the first answer
 * @param brokers registered brokers by id
 * @param topics topics by name
 * @param scramCredentials the SCRAM credentials the coordinators store ({@link ScramUsers}), replaced
 *     whole when a delta carries them
 * @param acls the ACLs the coordinators store ({@link ClusterAcls}), replaced whole when a delta
 *     carries them
 * @param clientQuotas the client quotas the coordinators store ({@link ClusterQuotas}), replaced
 *     whole when a delta carries them
 */
public record ClusterImage(
        long version,
        Map<Integer, BrokerInfo> brokers,
        Map<String, TopicInfo> topics,
        ScramUsers scramCredentials,
        ClusterAcls acls,
        ClusterQuotas clientQuotas) {

    /** The image a broker starts with, before it has heard from a coordinator. */
    public static final ClusterImage EMPTY = new ClusterImage(-1, Map.of(), Map.of());

    public ClusterImage {
        brokers = Map.copyOf(brokers);
        topics = Map.copyOf(topics);
        Objects.requireNonNull(scramCredentials, "scramCredentials");
        Objects.requireNonNull(acls, "acls");
        Objects.requireNonNull(clientQuotas, "clientQuotas");
    }

    /** An image without client quotas. */
    public ClusterImage(
            long version,
            Map<Integer, BrokerInfo> brokers,
            Map<String, TopicInfo> topics,
            ScramUsers scramCredentials,
            ClusterAcls acls) {
        this(version, brokers, topics, scramCredentials, acls, ClusterQuotas.EMPTY);
    }

    /** An image without ACLs. */
    public ClusterImage(
            long version,
            Map<Integer, BrokerInfo> brokers,
            Map<String, TopicInfo> topics,
            ScramUsers scramCredentials) {
        this(version, brokers, topics, scramCredentials, ClusterAcls.EMPTY);
    }

    /** An image without SCRAM credentials. */
    public ClusterImage(long version, Map<Integer, BrokerInfo> brokers, Map<String, TopicInfo> topics) {
        this(version, brokers, topics, ScramUsers.EMPTY);
    }

    /**
     * The image after {@code delta}: a full delta replaces everything; SCRAM credentials and ACLs
     * are each replaced when the delta carries them (a full one always does), else kept.
     */
    public ClusterImage apply(MetadataDelta delta) {
        Objects.requireNonNull(delta, "delta");
        Map<Integer, BrokerInfo> nextBrokers = delta.full() ? new HashMap<>() : new HashMap<>(brokers);
        Map<String, TopicInfo> nextTopics = delta.full() ? new HashMap<>() : new HashMap<>(topics);
        for (BrokerInfo broker : delta.brokers()) {
            nextBrokers.put(broker.id(), broker);
        }
        for (String name : delta.deletedTopics()) {
            nextTopics.remove(name);
        }
        for (TopicInfo topic : delta.topics()) {
            nextTopics.put(topic.name(), topic);
        }
        ScramUsers nextScram = delta.scramCredentials().orElse(delta.full() ? ScramUsers.EMPTY : scramCredentials);
        ClusterAcls nextAcls = delta.acls().orElse(delta.full() ? ClusterAcls.EMPTY : acls);
        ClusterQuotas nextQuotas = delta.clientQuotas().orElse(delta.full() ? ClusterQuotas.EMPTY : clientQuotas);
        return new ClusterImage(
                Math.max(version, delta.version()), nextBrokers, nextTopics, nextScram, nextAcls, nextQuotas);
    }

    public Optional<TopicInfo> topic(String name) {
        return Optional.ofNullable(topics.get(name));
    }

    /** The topic with this id; a linear scan (topic-id requests are per topic, not per record). */
    public Optional<TopicInfo> topic(Uuid id) {
        return topics.values().stream().filter(t -> t.id().equals(id)).findFirst();
    }

    public Optional<BrokerInfo> broker(int id) {
        return Optional.ofNullable(brokers.get(id));
    }
}
