package io.tributary.broker.cluster;

import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclBindingFilter;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.Uuid;

/**
 * The coordinators' control plane as the broker calls it (HTTP/JSON, {@code docs/control-plane.md}).
 * Implementations find the Raft leader (following its redirects) and try the other coordinators
 * when one is unreachable. Every method throws {@link ControlPlaneException} on failure.
 */
public interface ControlPlane {

    /** A write that committed at {@code version}. */
    record TopicWrite(long version, TopicInfo topic) {}

    /** An AlterPartition that committed at {@code version}. */
    record PartitionWrite(long version, String topic, PartitionInfo partition) {}

    /** Producer ids {@code [first, first + count)}, unique in the cluster, for InitProducerId. */
    record ProducerIdBlock(long version, long firstProducerId, int count) {}

    /**
     * The Kafka endpoint of a coordinator: where consumer groups are served.
     *
     * @param coordinatorId the coordinator's id (its index among the voters)
     * @param host its advertised Kafka host
     * @param port its advertised Kafka port
     */
    record GroupCoordinator(int coordinatorId, String host, int port) {}

    /** A SCRAM credential to delete: a user's credential for a mechanism code (Kafka's, any byte). */
    record ScramDeletion(String user, int mechanism) {}

    /**
     * A SCRAM credential to store, with the keys derived from the request's salted password; the keys
     * are empty when they could not be derived (an unknown mechanism or an empty salted password):
     * the coordinators then answer that user's error.
     */
    record ScramUpsertion(
            String user, int mechanism, int iterations, byte[] salt, byte[] storedKey, byte[] serverKey) {}

    /**
     * One user's result of AlterUserScramCredentials.
     *
     * @param error Kafka's error name ({@code NONE} when the change was written)
     */
    record ScramResult(String user, String error, String message) {}

    /** AlterUserScramCredentials' results, and the version that has the accepted changes. */
    record ScramWrite(long version, List<ScramResult> results) {}

    /**
     * One CreateAcls creation's or DeleteAcls filter's outcome.
     *
     * @param error Kafka's error name ({@code NONE} when it succeeded)
     */
    record AclOutcome(String error, String message) {}

    /** CreateAcls' outcomes in request order, and the version that has the new ACLs. */
    record AclCreation(long version, List<AclOutcome> results) {}

    /** One DeleteAcls filter's outcome and the ACLs it matched (and deleted). */
    record AclFilterOutcome(AclOutcome outcome, List<AclBinding> matched) {}

    /** One part of an AlterClientQuotas entity as the request names it (a null name: the default). */
    record QuotaPart(String entityType, String name) {}

    /** One AlterClientQuotas op: a key and its value, or a removal. */
    record QuotaOp(String key, double value, boolean remove) {}

    /** One AlterClientQuotas entry: its entity's parts and its ops. */
    record QuotaEntry(List<QuotaPart> entity, List<QuotaOp> ops) {
        public QuotaEntry {
            entity = List.copyOf(entity);
            ops = List.copyOf(ops);
        }
    }

    /** AlterClientQuotas' entries, in request order, and whether only to validate them. */
    record QuotaRequest(List<QuotaEntry> entries, boolean validateOnly) {
        public QuotaRequest {
            entries = List.copyOf(entries);
        }
    }

    /** AlterClientQuotas' outcomes in entry order, and the version that has the change. */
    record QuotaAlteration(long version, List<AclOutcome> results) {
        public QuotaAlteration {
            results = List.copyOf(results);
        }
    }

    /** DeleteAcls' outcomes in filter order, and the version without the deleted ACLs. */
    record AclDeletion(long version, List<AclFilterOutcome> results) {}

    /** Registers this broker's incarnation; returns the committed version. */
    long register(int brokerId, Uuid incarnationId, String rack, List<BrokerEndpoint> endpoints);

    /** Heartbeats; returns the leader's current metadata version. */
    long heartbeat(int brokerId, Uuid incarnationId);

    /**
     * A controlled shutdown (this broker is stopping cleanly): the coordinators fence this
     * incarnation now, so its leaderships move at once rather than when its session expires; later
     * heartbeats of this incarnation do not unfence it. The call gives up after {@code timeout}
     * (retries included).
     *
     * @return the metadata version that has this broker fenced
     */
    long shutdown(int brokerId, Uuid incarnationId, Duration timeout);

    /**
     * The metadata long poll: changes after {@code after} (the full image when absent), waiting up to
     * {@code maxWait} for one.
     */
    MetadataDelta fetchMetadata(OptionalLong after, Duration maxWait);

    TopicWrite createTopic(String name, int partitions, int replicationFactor, Map<String, String> configs);

    /** Returns the committed version. */
    long deleteTopic(String name);

    TopicWrite alterConfigs(String topic, Map<String, String> set, Collection<String> remove);

    /** Grows {@code topic} to {@code totalCount} partitions (Kafka's CreatePartitions). */
    TopicWrite createPartitions(String topic, int totalCount);

    /** Allocates a block of producer ids for {@code brokerId}. */
    ProducerIdBlock allocateProducerIds(int brokerId, int count);

    /** Proposes a new ISR as the partition's leader (replication, issue 7). */
    PartitionWrite alterPartition(
            String topic, int partition, int leaderId, int leaderEpoch, int partitionEpoch, List<Integer> isr);

    /**
     * Kafka's AlterUserScramCredentials on the coordinators' leader ({@code POST
     * /internal/v1/scram-credentials}): its per-user checks, then one Raft write of what they accepted.
     * The default stores nothing (test doubles that do not serve SCRAM credentials).
     */
    default ScramWrite alterScramCredentials(List<ScramDeletion> deletions, List<ScramUpsertion> upsertions) {
        throw new ControlPlaneException(
                ControlPlaneException.Kind.UNAVAILABLE, "this control plane does not store SCRAM credentials");
    }

    /**
     * Kafka's CreateAcls on the coordinators' leader ({@code POST /internal/v1/acls}): its per-ACL
     * checks, then one Raft write of the new ACLs. The default stores nothing (test doubles that do
     * not serve ACLs).
     */
    default AclCreation createAcls(List<AclBinding> creations) {
        throw new ControlPlaneException(
                ControlPlaneException.Kind.UNAVAILABLE, "this control plane does not store ACLs");
    }

    /**
     * Kafka's AlterClientQuotas on the coordinators' leader ({@code POST
     * /internal/v1/client-quotas}): its per-entry checks, then one Raft write of the accepted
     * changes (none when validating only). The default stores nothing.
     */
    default QuotaAlteration alterClientQuotas(QuotaRequest request) {
        throw new ControlPlaneException(
                ControlPlaneException.Kind.UNAVAILABLE, "this control plane does not store client quotas");
    }

    /**
     * Kafka's DeleteAcls on the coordinators' leader ({@code POST /internal/v1/acls/delete}): every
     * ACL each filter matches, deleted in one Raft write. The default stores nothing.
     */
    default AclDeletion deleteAcls(List<AclBindingFilter> filters) {
        throw new ControlPlaneException(
                ControlPlaneException.Kind.UNAVAILABLE, "this control plane does not store ACLs");
    }

    /**
     * The coordinators' Raft leader's Kafka endpoint, which serves every consumer group ({@code GET
     * /internal/v1/cluster}); empty while no leader is known or the leader advertises no Kafka
     * address. The default knows no coordinator (test doubles that do not serve groups).
     */
    default Optional<GroupCoordinator> groupCoordinator() {
        return Optional.empty();
    }
}
