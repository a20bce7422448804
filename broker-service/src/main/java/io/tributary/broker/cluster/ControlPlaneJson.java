package io.tributary.broker.cluster;

import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclBindingFilter;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclPatternType;
import io.tributary.common.security.acl.AclPermission;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.common.security.quota.QuotaEntity;
import io.tributary.common.security.quota.QuotaEntityType;
import io.tributary.common.security.quota.QuotaKey;
import io.tributary.common.security.sasl.ScramCredentialData;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.common.Uuid;

/**
 * The JSON bodies of the coordinators' control plane as the broker writes and reads them; the
 * shapes are the coordinator's {@code ControlDtos} ({@code docs/control-plane.md}, "Shapes").
 * Fields the broker does not use ({@code registeredAtMs}) are ignored when read.
 */
final class ControlPlaneJson {

    private ControlPlaneJson() {}

    record EndpointJson(String listener, String host, int port) {
        static EndpointJson of(BrokerEndpoint e) {
            return new EndpointJson(e.listener(), e.host(), e.port());
        }

        BrokerEndpoint toEndpoint() {
            return new BrokerEndpoint(listener, host, port);
        }
    }

    record RegisterBrokerRequest(int brokerId, UUID incarnationId, List<EndpointJson> endpoints, String rack) {}

    record HeartbeatRequest(UUID incarnationId) {}

    record AlterPartitionRequest(int leaderId, int leaderEpoch, int partitionEpoch, List<Integer> isr) {}

    record CreateTopicRequest(String name, int partitions, int replicationFactor, Map<String, String> configs) {}

    record AlterConfigsRequest(Map<String, String> set, List<String> remove) {}

    record CreatePartitionsRequest(int count) {}

    record AllocateProducerIdsRequest(int brokerId, int count) {}

    record VersionJson(Long version) {}

    record ProducerIdsJson(Long version, Long firstProducerId, Integer count) {}

    record BrokerJson(int id, UUID incarnationId, List<EndpointJson> endpoints, String rack, boolean fenced) {
        BrokerInfo toBroker() {
            return new BrokerInfo(
                    id,
                    uuid(incarnationId),
                    nonNull(endpoints).stream().map(EndpointJson::toEndpoint).toList(),
                    rack,
                    fenced);
        }
    }

    record PartitionJson(
            int partition, List<Integer> replicas, int leader, int leaderEpoch, List<Integer> isr, int partitionEpoch) {
        PartitionInfo toPartition() {
            return new PartitionInfo(partition, nonNull(replicas), leader, leaderEpoch, nonNull(isr), partitionEpoch);
        }
    }

    record TopicJson(String name, UUID id, Map<String, String> configs, List<PartitionJson> partitions) {
        TopicInfo toTopic() {
            List<PartitionInfo> parsed = new ArrayList<>();
            for (PartitionJson p : nonNull(partitions)) {
                parsed.add(p.toPartition());
            }
            return new TopicInfo(name, uuid(id), configs == null ? Map.of() : configs, parsed);
        }
    }

    record TopicWriteJson(Long version, TopicJson topic) {}

    record PartitionWriteJson(Long version, String topic, PartitionJson partition) {}

    record MetadataJson(
            Long version,
            boolean full,
            List<BrokerJson> brokers,
            List<TopicJson> topics,
            List<String> deletedTopics,
            List<ScramUserJson> scramCredentials,
            List<AclJson> acls,
            List<ClientQuotaJson> clientQuotas) {
        MetadataDelta toDelta() {
            return new MetadataDelta(
                    version,
                    full,
                    nonNull(brokers).stream().map(BrokerJson::toBroker).toList(),
                    nonNull(topics).stream().map(TopicJson::toTopic).toList(),
                    nonNull(deletedTopics),
                    Optional.ofNullable(scramCredentials).map(ScramUserJson::toUsers),
                    Optional.ofNullable(acls)
                            .map(list -> new ClusterAcls(
                                    list.stream().map(AclJson::toBinding).toList())),
                    Optional.ofNullable(clientQuotas).map(ClientQuotaJson::toQuotas));
        }
    }

    /** One part of a quota entity ({@code user}, {@code client-id}, {@code ip}; a null name: the default). */
    record QuotaEntityPartJson(String entityType, String entityName) {}

    /** An entity's client quotas; the coordinator's {@code ClientQuotaJson}. */
    record ClientQuotaJson(List<QuotaEntityPartJson> entity, Map<String, Double> values) {
        /** The JSON of every entity's quotas (the coordinator's shape; test doubles). */
        static List<ClientQuotaJson> of(ClusterQuotas quotas) {
            List<ClientQuotaJson> all = new ArrayList<>();
            quotas.byEntity().forEach((entity, values) -> {
                List<QuotaEntityPartJson> parts = new ArrayList<>();
                entity.parts().forEach((t, n) -> parts.add(new QuotaEntityPartJson(t.wireName(), n.orElse(null))));
                Map<String, Double> byName = new TreeMap<>();
                values.forEach((k, v) -> byName.put(k.wireName(), v));
                all.add(new ClientQuotaJson(parts, byName));
            });
            return all;
        }

        static ClusterQuotas toQuotas(List<ClientQuotaJson> all) {
            Map<QuotaEntity, Map<QuotaKey, Double>> byEntity = new LinkedHashMap<>();
            for (ClientQuotaJson q : all) {
                Map<QuotaEntityType, Optional<String>> parts = new EnumMap<>(QuotaEntityType.class);
                for (QuotaEntityPartJson p : q.entity()) {
                    QuotaEntityType type = QuotaEntityType.fromWireName(p.entityType())
                            .orElseThrow(() -> new IllegalArgumentException("quota entity type " + p.entityType()));
                    parts.put(type, Optional.ofNullable(p.entityName()));
                }
                Map<QuotaKey, Double> values = new EnumMap<>(QuotaKey.class);
                q.values()
                        .forEach((k, v) -> values.put(
                                QuotaKey.fromWireName(k)
                                        .orElseThrow(() -> new IllegalArgumentException("quota key " + k)),
                                v));
                byEntity.put(new QuotaEntity(parts), values);
            }
            return new ClusterQuotas(byEntity);
        }
    }

    /** One AlterClientQuotas op: a key and its value, or {@code remove}. */
    record QuotaOpJson(String key, Double value, Boolean remove) {}

    /** One AlterClientQuotas entry as the request names it. */
    record QuotaEntryJson(List<QuotaEntityPartJson> entity, List<QuotaOpJson> ops) {}

    record AlterClientQuotasRequest(List<QuotaEntryJson> entries, Boolean validateOnly) {}

    record AlterClientQuotasJson(Long version, List<AclResultJson> results) {}

    /**
     * An ACL, or a filter of ACLs (null name, principal or host: any), by Kafka's enum names; the
     * coordinator's {@code AclJson}.
     */
    record AclJson(
            AclResourceType resourceType,
            String resourceName,
            AclPatternType patternType,
            String principal,
            String host,
            AclOperation operation,
            AclPermission permission) {
        static AclJson of(AclBinding a) {
            return new AclJson(
                    a.resourceType(),
                    a.resourceName(),
                    a.patternType(),
                    a.principal(),
                    a.host(),
                    a.operation(),
                    a.permission());
        }

        static AclJson of(AclBindingFilter f) {
            return new AclJson(
                    f.resourceType(),
                    f.resourceName(),
                    f.patternType(),
                    f.principal(),
                    f.host(),
                    f.operation(),
                    f.permission());
        }

        AclBinding toBinding() {
            return new AclBinding(
                    Objects.requireNonNull(resourceType, "resourceType"),
                    Objects.requireNonNull(resourceName, "resourceName"),
                    Objects.requireNonNull(patternType, "patternType"),
                    Objects.requireNonNull(principal, "principal"),
                    Objects.requireNonNull(host, "host"),
                    Objects.requireNonNull(operation, "operation"),
                    Objects.requireNonNull(permission, "permission"));
        }
    }

    record CreateAclsRequest(List<AclJson> creations) {}

    record AclResultJson(String error, String message) {}

    record CreateAclsJson(Long version, List<AclResultJson> results) {}

    record DeleteAclsRequest(List<AclJson> filters) {}

    record AclFilterResultJson(String error, String message, List<AclJson> matched) {}

    record DeleteAclsJson(Long version, List<AclFilterResultJson> results) {}

    /** A stored SCRAM credential; byte strings are base64. */
    record ScramCredentialJson(
            Integer mechanism, byte[] salt, byte[] storedKey, byte[] serverKey, Integer iterations) {}

    record ScramUserJson(String user, List<ScramCredentialJson> credentials) {
        static ScramUsers toUsers(List<ScramUserJson> users) {
            Map<String, Map<Integer, ScramCredentialData>> parsed = new TreeMap<>();
            for (ScramUserJson u : users) {
                Map<Integer, ScramCredentialData> byMechanism = new TreeMap<>();
                for (ScramCredentialJson c : nonNull(u.credentials())) {
                    byMechanism.put(
                            Objects.requireNonNull(c.mechanism(), "mechanism"),
                            new ScramCredentialData(
                                    c.salt(),
                                    c.storedKey(),
                                    c.serverKey(),
                                    Objects.requireNonNull(c.iterations(), "iterations")));
                }
                parsed.put(Objects.requireNonNull(u.user(), "user"), byMechanism);
            }
            return new ScramUsers(parsed);
        }
    }

    record ScramDeletionJson(String user, int mechanism) {}

    record ScramUpsertionJson(
            String user, int mechanism, int iterations, byte[] salt, byte[] storedKey, byte[] serverKey) {}

    record AlterScramCredentialsRequest(List<ScramDeletionJson> deletions, List<ScramUpsertionJson> upsertions) {}

    record ScramResultJson(String user, String error, String message) {}

    record AlterScramCredentialsJson(Long version, List<ScramResultJson> results) {}

    /** RFC 9457 problem details; only {@code type} and {@code detail} are acted on. */
    record CoordinatorJson(Integer id, String kafkaAddress, Boolean leader) {}

    record ClusterJson(Integer leaderId, List<CoordinatorJson> coordinators) {}

    record ProblemJson(String type, String title, Integer status, String detail, String instance) {}

    static Uuid uuid(UUID id) {
        if (id == null) {
            throw new IllegalArgumentException("a required id is missing");
        }
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    static UUID uuid(Uuid id) {
        return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    private static <T> List<T> nonNull(List<T> list) {
        if (list == null) {
            throw new IllegalArgumentException("a required list is missing");
        }
        return list;
    }
}
