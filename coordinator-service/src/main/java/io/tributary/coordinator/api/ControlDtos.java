package io.tributary.coordinator.api;

import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclPatternType;
import io.tributary.common.security.acl.AclPermission;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.coordinator.metadata.Broker;
import io.tributary.coordinator.metadata.ClientQuotas;
import io.tributary.coordinator.metadata.Endpoint;
import io.tributary.coordinator.metadata.PartitionState;
import io.tributary.coordinator.metadata.ScramCredentials;
import io.tributary.coordinator.metadata.Topic;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The JSON bodies of the control plane (documented in {@code docs/control-plane.md}). Request
 * fields are boxed or nullable so that a missing one is a 400, not a silent zero.
 */
final class ControlDtos {

    private ControlDtos() {}

    record EndpointJson(String listener, String host, Integer port) {
        static EndpointJson of(Endpoint e) {
            return new EndpointJson(e.listener(), e.host(), e.port());
        }
    }

    record RegisterBrokerRequest(Integer brokerId, UUID incarnationId, List<EndpointJson> endpoints, String rack) {}

    record HeartbeatRequest(UUID incarnationId) {}

    record AlterPartitionRequest(Integer leaderId, Integer leaderEpoch, Integer partitionEpoch, List<Integer> isr) {}

    record CreateTopicRequest(
            String name, Integer partitions, Integer replicationFactor, Map<String, String> configs) {}

    record AlterConfigsRequest(Map<String, String> set, List<String> remove) {}

    /** CreatePartitions: the topic's new total partition count. */
    record CreatePartitionsRequest(Integer count) {}

    record AllocateProducerIdsRequest(Integer brokerId, Integer count) {}

    /** The producer ids {@code [firstProducerId, firstProducerId + count)}, now the broker's own. */
    record ProducerIdsJson(long version, long firstProducerId, int count) {}

    /** The answer to a write: the metadata version that includes it. */
    record VersionJson(long version) {}

    record BrokerJson(
            int id,
            UUID incarnationId,
            List<EndpointJson> endpoints,
            String rack,
            boolean fenced,
            long registeredAtMs) {
        static BrokerJson of(Broker b) {
            return new BrokerJson(
                    b.id(),
                    b.incarnationId(),
                    b.endpoints().stream().map(EndpointJson::of).toList(),
                    b.rack().orElse(null),
                    b.fenced(),
                    b.registeredAtMs());
        }
    }

    record PartitionJson(
            int partition, List<Integer> replicas, int leader, int leaderEpoch, List<Integer> isr, int partitionEpoch) {
        static PartitionJson of(int index, PartitionState p) {
            return new PartitionJson(index, p.replicas(), p.leader(), p.leaderEpoch(), p.isr(), p.partitionEpoch());
        }
    }

    record TopicJson(String name, UUID id, Map<String, String> configs, List<PartitionJson> partitions) {
        static TopicJson of(Topic t) {
            List<PartitionJson> partitions = new ArrayList<>();
            for (int i = 0; i < t.partitions().size(); i++) {
                partitions.add(PartitionJson.of(i, t.partitions().get(i)));
            }
            return new TopicJson(t.name(), t.id(), t.configs(), partitions);
        }
    }

    /** A write that was applied, with the version that includes it and the topic as it is now. */
    record TopicWriteJson(long version, TopicJson topic) {}

    record PartitionWriteJson(long version, String topic, PartitionJson partition) {}

    /**
     * The metadata long poll's answer; {@code scramCredentials} is every user's credentials when they
     * changed since {@code after} (or in a full answer), absent (null) otherwise; {@code acls} every
     * ACL when they changed (or in a full answer), absent otherwise; {@code clientQuotas} likewise.
     */
    record MetadataJson(
            long version,
            boolean full,
            List<BrokerJson> brokers,
            List<TopicJson> topics,
            List<String> deletedTopics,
            List<ScramUserJson> scramCredentials,
            List<AclJson> acls,
            List<ClientQuotaJson> clientQuotas) {
        static MetadataJson of(MetadataHistory.Changes c) {
            return new MetadataJson(
                    c.version(),
                    c.full(),
                    c.brokers().stream().map(BrokerJson::of).toList(),
                    c.topics().stream().map(TopicJson::of).toList(),
                    c.deletedTopics(),
                    c.scramCredentials().map(ScramUserJson::all).orElse(null),
                    c.acls()
                            .map(acls -> acls.asSet().stream().map(AclJson::of).toList())
                            .orElse(null),
                    c.clientQuotas().map(ClientQuotaJson::all).orElse(null));
        }
    }

    /**
     * An ACL, or in a filter a pattern of ACLs: Kafka's enum names ({@code TOPIC}, {@code LITERAL},
     * {@code READ}, {@code ALLOW}; {@code ANY}, {@code MATCH} and {@code UNKNOWN} where Kafka has
     * them); in a filter a null name, principal or host matches any.
     */
    record AclJson(
            AclResourceType resourceType,
            String resourceName,
            AclPatternType patternType,
            String principal,
            String host,
            AclOperation operation,
            AclPermission permission) {
        static AclJson of(AclBinding acl) {
            return new AclJson(
                    acl.resourceType(),
                    acl.resourceName(),
                    acl.patternType(),
                    acl.principal(),
                    acl.host(),
                    acl.operation(),
                    acl.permission());
        }
    }

    /** One part of a quota entity: {@code user}, {@code client-id} or {@code ip}; a null name is the default. */
    record QuotaEntityPartJson(String entityType, String entityName) {}

    /** An entity's client quotas: its parts and its values by Kafka's key names. */
    record ClientQuotaJson(List<QuotaEntityPartJson> entity, Map<String, Double> values) {
        static List<ClientQuotaJson> all(ClientQuotas quotas) {
            List<ClientQuotaJson> all = new ArrayList<>();
            quotas.asMap().forEach((entity, values) -> {
                List<QuotaEntityPartJson> parts = new ArrayList<>();
                entity.parts().forEach((t, n) -> parts.add(new QuotaEntityPartJson(t.wireName(), n.orElse(null))));
                Map<String, Double> byName = new TreeMap<>();
                values.forEach((k, v) -> byName.put(k.wireName(), v));
                all.add(new ClientQuotaJson(parts, byName));
            });
            return all;
        }
    }

    /** One AlterClientQuotas op: a key and its value, or {@code remove}. */
    record QuotaOpJson(String key, Double value, Boolean remove) {}

    /** One AlterClientQuotas entry: the entity's parts as the request names them, and its ops. */
    record QuotaEntryJson(List<QuotaEntityPartJson> entity, List<QuotaOpJson> ops) {}

    /** AlterClientQuotas' entries, in request order, and whether only to validate. */
    record AlterClientQuotasRequest(List<QuotaEntryJson> entries, Boolean validateOnly) {}

    /** The entries' results, in request order, and the version that has the change (the current one when none). */
    record AlterClientQuotasJson(long version, List<AclResultJson> results) {}

    /** CreateAcls' creations, in request order. */
    record CreateAclsRequest(List<AclJson> creations) {}

    /** One creation's result: {@code error} is Kafka's error name ({@code NONE} when stored). */
    record AclResultJson(String error, String message) {}

    /** The results, and the metadata version that has the new ACLs (the current one when none). */
    record CreateAclsJson(long version, List<AclResultJson> results) {}

    /** DeleteAcls' filters, in request order. */
    record DeleteAclsRequest(List<AclJson> filters) {}

    /** One filter's result: Kafka's error name, and the ACLs it matched (and deleted). */
    record AclFilterResultJson(String error, String message, List<AclJson> matched) {}

    /** The results, and the metadata version without the deleted ACLs (the current one when none). */
    record DeleteAclsJson(long version, List<AclFilterResultJson> results) {}

    /** A stored SCRAM credential; byte strings are base64 (Jackson's default). */
    record ScramCredentialJson(int mechanism, byte[] salt, byte[] storedKey, byte[] serverKey, int iterations) {}

    /** One user's SCRAM credentials, mechanisms ascending. */
    record ScramUserJson(String user, List<ScramCredentialJson> credentials) {
        static List<ScramUserJson> all(ScramCredentials scram) {
            List<ScramUserJson> users = new ArrayList<>();
            scram.asMap().forEach((user, byMechanism) -> {
                List<ScramCredentialJson> credentials = new ArrayList<>();
                byMechanism.forEach((mechanism, c) -> credentials.add(
                        new ScramCredentialJson(mechanism, c.salt(), c.storedKey(), c.serverKey(), c.iterations())));
                users.add(new ScramUserJson(user, credentials));
            });
            return users;
        }
    }

    /** AlterUserScramCredentials' deletion: a user's credential for a mechanism code (Kafka's). */
    record ScramDeletionJson(String user, Integer mechanism) {}

    /**
     * AlterUserScramCredentials' upsertion with the keys the broker derived from the salted password
     * (absent or empty when it could not: the salted password was empty).
     */
    record ScramUpsertionJson(
            String user, Integer mechanism, Integer iterations, byte[] salt, byte[] storedKey, byte[] serverKey) {}

    record AlterScramCredentialsRequest(List<ScramDeletionJson> deletions, List<ScramUpsertionJson> upsertions) {}

    /** One user's result: {@code error} is Kafka's error name ({@code NONE} when written). */
    record ScramResultJson(String user, String error, String message) {}

    /** The results, and the metadata version that has the accepted changes (the current one when none). */
    record AlterScramCredentialsJson(long version, List<ScramResultJson> results) {}

    record CoordinatorJson(int id, String httpAddress, String raftAddress, String kafkaAddress, boolean leader) {}

    record ClusterJson(long version, Integer leaderId, List<CoordinatorJson> coordinators, List<BrokerJson> brokers) {}

    record TopicsJson(long version, List<TopicJson> topics) {}
}
