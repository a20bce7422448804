package io.tributary.common.security.acl;

import static io.tributary.common.security.acl.AclOperation.ALTER;
import static io.tributary.common.security.acl.AclOperation.ALTER_CONFIGS;
import static io.tributary.common.security.acl.AclOperation.CLUSTER_ACTION;
import static io.tributary.common.security.acl.AclOperation.CREATE;
import static io.tributary.common.security.acl.AclOperation.DELETE;
import static io.tributary.common.security.acl.AclOperation.DESCRIBE;
import static io.tributary.common.security.acl.AclOperation.DESCRIBE_CONFIGS;
import static io.tributary.common.security.acl.AclOperation.IDEMPOTENT_WRITE;
import static io.tributary.common.security.acl.AclOperation.READ;
import static io.tributary.common.security.acl.AclOperation.WRITE;
import static io.tributary.common.security.acl.AclResourceType.CLUSTER;
import static io.tributary.common.security.acl.AclResourceType.GROUP;
import static io.tributary.common.security.acl.AclResourceType.TOPIC;
import static io.tributary.common.security.acl.AclResourceType.TRANSACTIONAL_ID;
import static org.apache.kafka.common.protocol.Errors.CLUSTER_AUTHORIZATION_FAILED;
import static org.apache.kafka.common.protocol.Errors.GROUP_AUTHORIZATION_FAILED;
import static org.apache.kafka.common.protocol.Errors.TOPIC_AUTHORIZATION_FAILED;
import static org.apache.kafka.common.protocol.Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * What Apache Kafka 4.4's brokers require of the caller for each Kafka API, in one table: the ACL
 * checks in the order Kafka makes them, on which resource, and what a refused caller is answered.
 * The listener applies the checks that refuse a whole request ({@link Placement#WHOLE} on the
 * cluster, the request's group or its transactional id: {@code io.tributary.common.protocol.
 * RequestAuthorizer}); the handlers apply the checks on each topic, group or key a request names
 * ({@link Placement#PER_ITEM}, {@link Placement#FILTERED}). A new API cannot be served without an
 * entry here: the broker's and the coordinator's tests check that every API they serve has one.
 *
 * <p>Learnt from Kafka's {@code KafkaApis}, {@code AuthHelper} and {@code ControllerApis} (4.x) and
 * its documentation's "Operations and Resources on Protocols"; where the documentation and the code
 * differ, the code wins (DescribeCluster needs no permission on a broker; a follower's Fetch is
 * refused per partition, not with CLUSTER_AUTHORIZATION_FAILED).
 *
 * <p>Thread-safety: immutable.
 */
public final class ApiAccess {

    /** Which resource a check names. */
    public enum Target {
        /** The cluster, named {@value AclResourceType#CLUSTER_NAME}. */
        CLUSTER,
        /** The one group id the request carries ({@code groupId}). */
        REQUEST_GROUP,
        /** The request's transactional id, when it has one (a produce without one skips the check). */
        REQUEST_TRANSACTIONAL_ID,
        /** Each topic the request names (or, when it asks for all, each topic there is). */
        EACH_TOPIC,
        /** Each group the request names. */
        EACH_GROUP,
        /** Each transactional id the request names. */
        EACH_TRANSACTIONAL_ID,
        /** Each config resource: the cluster for broker ones, the topic or group for theirs. */
        EACH_CONFIG_RESOURCE
    }

    /** What the caller gets when a check refuses it. */
    public enum Placement {
        /** The request's own error response, the error on every entry ({@code getErrorResponse}). */
        WHOLE,
        /** The error on the entries of the refused item only; the others are served. */
        PER_ITEM,
        /** The refused items are left out of the answer without an error (listings). */
        FILTERED,
        /**
         * Not an error: when this check allows, the checks after it are skipped (Kafka's "on the
         * cluster, else on each topic"); when it does not, they decide.
         */
        SUFFICIENT
    }

    /**
     * One check.
     *
     * @param type the resource type
     * @param operation the operation (an ACL allowing an operation that implies it also allows it,
     *     {@link AclOperation#allowImplies})
     * @param target which resource of that type
     * @param denied the error a refusal answers (unused for {@link Placement#FILTERED} and {@link
     *     Placement#SUFFICIENT})
     * @param placement where that error goes
     * @param minVersion the first version of the request the check applies to
     * @param maxVersion the last
     */
    public record Check(
            AclResourceType type,
            AclOperation operation,
            Target target,
            Errors denied,
            Placement placement,
            short minVersion,
            short maxVersion) {

        public Check {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(operation, "operation");
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(denied, "denied");
            Objects.requireNonNull(placement, "placement");
        }

        /** Whether the check applies to a request of {@code version}. */
        public boolean appliesTo(short version) {
            return version >= minVersion && version <= maxVersion;
        }

        /** The same check for versions {@code from} and later only. */
        Check since(int from) {
            return new Check(type, operation, target, denied, placement, (short) from, maxVersion);
        }

        /** The same check for versions before {@code until} only. */
        Check before(int until) {
            return new Check(type, operation, target, denied, placement, minVersion, (short) (until - 1));
        }
    }

    /**
     * The checks of one API, in Kafka's order, and what else a reader of the table needs.
     *
     * @param api the API
     * @param checks its checks; empty for an API Kafka does not authorize
     * @param note the quirks of Kafka's answers the checks alone do not say
     */
    public record Rule(ApiKeys api, List<Check> checks, String note) {
        public Rule {
            Objects.requireNonNull(api, "api");
            checks = List.copyOf(checks);
            Objects.requireNonNull(note, "note");
        }
    }

    private static final Map<ApiKeys, Rule> RULES = rules();

    private ApiAccess() {}

    /** The rule of {@code api}, if the table has one. */
    public static Optional<Rule> of(ApiKeys api) {
        return Optional.ofNullable(RULES.get(api));
    }

    /** Every rule, by API. */
    public static Map<ApiKeys, Rule> all() {
        return RULES;
    }

    private static Check whole(AclResourceType type, AclOperation operation, Target target, Errors denied) {
        return new Check(type, operation, target, denied, Placement.WHOLE, (short) 0, Short.MAX_VALUE);
    }

    private static Check perItem(AclResourceType type, AclOperation operation, Target target, Errors denied) {
        return new Check(type, operation, target, denied, Placement.PER_ITEM, (short) 0, Short.MAX_VALUE);
    }

    private static Check filtered(AclResourceType type, AclOperation operation, Target target) {
        return new Check(type, operation, target, Errors.NONE, Placement.FILTERED, (short) 0, Short.MAX_VALUE);
    }

    private static Check sufficient(AclResourceType type, AclOperation operation, Target target) {
        return new Check(type, operation, target, Errors.NONE, Placement.SUFFICIENT, (short) 0, Short.MAX_VALUE);
    }

    private static Check cluster(AclOperation operation) {
        return whole(CLUSTER, operation, Target.CLUSTER, CLUSTER_AUTHORIZATION_FAILED);
    }

    private static Check readRequestGroup() {
        return whole(GROUP, READ, Target.REQUEST_GROUP, GROUP_AUTHORIZATION_FAILED);
    }

    private static Check requestTransaction() {
        return whole(TRANSACTIONAL_ID, WRITE, Target.REQUEST_TRANSACTIONAL_ID, TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    }

    private static Check eachTopic(AclOperation operation) {
        return perItem(TOPIC, operation, Target.EACH_TOPIC, TOPIC_AUTHORIZATION_FAILED);
    }

    private static Check eachGroup(AclOperation operation) {
        return perItem(GROUP, operation, Target.EACH_GROUP, GROUP_AUTHORIZATION_FAILED);
    }

    private static Check eachConfigResource(AclOperation operation) {
        // the error is the resource type's: CLUSTER_, TOPIC_ or GROUP_AUTHORIZATION_FAILED
        return perItem(CLUSTER, operation, Target.EACH_CONFIG_RESOURCE, CLUSTER_AUTHORIZATION_FAILED);
    }

    private static Map<ApiKeys, Rule> rules() {
        Map<ApiKeys, Rule> rules = new EnumMap<>(ApiKeys.class);
        add(
                rules,
                ApiKeys.PRODUCE,
                "a transactional batch is refused whole (TRANSACTIONAL_ID_AUTHORIZATION_FAILED on every"
                        + " partition) before any topic is looked at; idempotent and plain produce need no"
                        + " cluster permission here (InitProducerId checks it); acks=0 closes the connection",
                requestTransaction(),
                eachTopic(WRITE));
        add(
                rules,
                ApiKeys.FETCH,
                "a follower's fetch (replica id >= 0) needs CLUSTER_ACTION on the cluster instead, and a"
                        + " refused one gets TOPIC_AUTHORIZATION_FAILED on every partition",
                eachTopic(READ));
        add(rules, ApiKeys.LIST_OFFSETS, "refused partitions follow the served ones", eachTopic(DESCRIBE));
        add(
                rules,
                ApiKeys.METADATA,
                "all topics: the ones the caller cannot describe are left out; named topics:"
                        + " TOPIC_AUTHORIZATION_FAILED, also for a topic that does not exist; automatic"
                        + " creation needs CREATE on the cluster, else on each topic; cluster and topic"
                        + " authorized operations on request",
                eachTopic(DESCRIBE),
                sufficient(CLUSTER, CREATE, Target.CLUSTER),
                eachTopic(CREATE));
        add(
                rules,
                ApiKeys.OFFSET_COMMIT,
                "the group is checked first and refuses every partition; then each topic",
                readRequestGroup(),
                eachTopic(READ));
        add(
                rules,
                ApiKeys.OFFSET_FETCH,
                "each group, then each named topic (refused partitions follow, offset -1); all topics:"
                        + " the ones the caller cannot describe are left out; before v8 the one group's"
                        + " refusal is the top-level error",
                eachGroup(DESCRIBE),
                eachTopic(DESCRIBE));
        add(
                rules,
                ApiKeys.FIND_COORDINATOR,
                "GROUP keys: DESCRIBE on the group; TRANSACTION keys: DESCRIBE on the transactional id"
                        + " (TRANSACTIONAL_ID_AUTHORIZATION_FAILED); v4+ per key, before v4 the whole"
                        + " answer; SHARE keys: CLUSTER_ACTION on the cluster, a refusal failing the whole"
                        + " answer CLUSTER_AUTHORIZATION_FAILED",
                eachGroup(DESCRIBE),
                perItem(
                        TRANSACTIONAL_ID,
                        DESCRIBE,
                        Target.EACH_TRANSACTIONAL_ID,
                        TRANSACTIONAL_ID_AUTHORIZATION_FAILED));
        add(rules, ApiKeys.JOIN_GROUP, "", readRequestGroup());
        add(rules, ApiKeys.HEARTBEAT, "", readRequestGroup());
        add(rules, ApiKeys.LEAVE_GROUP, "", readRequestGroup());
        add(
                rules,
                ApiKeys.SYNC_GROUP,
                "v5+ without protocol type or name answers INCONSISTENT_GROUP_PROTOCOL before the check",
                readRequestGroup());
        add(
                rules,
                ApiKeys.DESCRIBE_GROUPS,
                "refused groups come first; authorized operations on request (v3+)",
                eachGroup(DESCRIBE));
        add(
                rules,
                ApiKeys.LIST_GROUPS,
                "never an error: DESCRIBE on the cluster lists every group, else the groups the caller"
                        + " may describe",
                sufficient(CLUSTER, DESCRIBE, Target.CLUSTER),
                filtered(GROUP, DESCRIBE, Target.EACH_GROUP));
        add(rules, ApiKeys.SASL_HANDSHAKE, "part of authentication");
        add(rules, ApiKeys.API_VERSIONS, "answered before authentication");
        add(
                rules,
                ApiKeys.CREATE_TOPICS,
                "CREATE on the cluster, else on each topic; a topic created without DESCRIBE_CONFIGS on"
                        + " it has its configuration withheld (TOPIC_AUTHORIZATION_FAILED as its config error)",
                sufficient(CLUSTER, CREATE, Target.CLUSTER),
                eachTopic(CREATE));
        add(
                rules,
                ApiKeys.DELETE_TOPICS,
                "DELETE on the cluster, else DESCRIBE and DELETE on each topic (a topic the caller cannot"
                        + " describe is TOPIC_AUTHORIZATION_FAILED whether or not it exists)",
                sufficient(CLUSTER, DELETE, Target.CLUSTER),
                eachTopic(DESCRIBE),
                eachTopic(DELETE));
        add(rules, ApiKeys.DELETE_RECORDS, "low watermark -1 on refused partitions", eachTopic(DELETE));
        add(
                rules,
                ApiKeys.INIT_PRODUCER_ID,
                "with a transactional id: WRITE on it; without (idempotent): IDEMPOTENT_WRITE on the"
                        + " cluster, or WRITE on any topic (KIP-679), else CLUSTER_AUTHORIZATION_FAILED",
                requestTransaction(),
                sufficient(CLUSTER, IDEMPOTENT_WRITE, Target.CLUSTER));
        add(
                rules,
                ApiKeys.OFFSET_FOR_LEADER_EPOCH,
                "CLUSTER_ACTION on the cluster (a replica), else DESCRIBE on each topic",
                sufficient(CLUSTER, CLUSTER_ACTION, Target.CLUSTER),
                eachTopic(DESCRIBE));
        add(
                rules,
                ApiKeys.ADD_PARTITIONS_TO_TXN,
                "before v4 (clients): one refused topic fails its whole transaction, the other partitions"
                        + " OPERATION_NOT_ATTEMPTED; v4+ is brokers verifying, CLUSTER_ACTION",
                perItem(TRANSACTIONAL_ID, WRITE, Target.EACH_TRANSACTIONAL_ID, TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
                        .before(4),
                eachTopic(WRITE).before(4),
                cluster(CLUSTER_ACTION).since(4));
        add(rules, ApiKeys.ADD_OFFSETS_TO_TXN, "", requestTransaction(), readRequestGroup());
        add(rules, ApiKeys.END_TXN, "", requestTransaction());
        add(
                rules,
                ApiKeys.WRITE_TXN_MARKERS,
                "ALTER on the cluster, else CLUSTER_ACTION",
                sufficient(CLUSTER, ALTER, Target.CLUSTER),
                cluster(CLUSTER_ACTION));
        add(rules, ApiKeys.TXN_OFFSET_COMMIT, "", requestTransaction(), readRequestGroup(), eachTopic(READ));
        add(rules, ApiKeys.DESCRIBE_ACLS, "", cluster(DESCRIBE));
        add(rules, ApiKeys.CREATE_ACLS, "", cluster(ALTER));
        add(rules, ApiKeys.DELETE_ACLS, "", cluster(ALTER));
        add(
                rules,
                ApiKeys.DESCRIBE_CONFIGS,
                "broker and broker-logger resources: the cluster; topics and groups: themselves;"
                        + " served resources come first, refused ones after",
                eachConfigResource(DESCRIBE_CONFIGS));
        add(
                rules,
                ApiKeys.ALTER_CONFIGS,
                "the request's validation errors come before the checks",
                eachConfigResource(ALTER_CONFIGS));
        add(rules, ApiKeys.ALTER_REPLICA_LOG_DIRS, "", cluster(ALTER));
        add(rules, ApiKeys.DESCRIBE_LOG_DIRS, "refused: the top-level error with no results", cluster(DESCRIBE));
        add(rules, ApiKeys.SASL_AUTHENTICATE, "part of authentication");
        add(rules, ApiKeys.CREATE_PARTITIONS, "no cluster fallback", eachTopic(ALTER));
        add(rules, ApiKeys.DELETE_GROUPS, "refused groups follow the served ones", eachGroup(DELETE));
        add(rules, ApiKeys.ELECT_LEADERS, "", cluster(ALTER));
        add(
                rules,
                ApiKeys.INCREMENTAL_ALTER_CONFIGS,
                "the request's validation errors come before the checks",
                eachConfigResource(ALTER_CONFIGS));
        add(rules, ApiKeys.ALTER_PARTITION_REASSIGNMENTS, "", cluster(ALTER));
        add(rules, ApiKeys.LIST_PARTITION_REASSIGNMENTS, "", cluster(DESCRIBE));
        add(
                rules,
                ApiKeys.OFFSET_DELETE,
                "DELETE on the group, then READ (not DELETE) on each topic",
                whole(GROUP, DELETE, Target.REQUEST_GROUP, GROUP_AUTHORIZATION_FAILED),
                eachTopic(READ));
        add(rules, ApiKeys.DESCRIBE_CLIENT_QUOTAS, "", cluster(DESCRIBE_CONFIGS));
        add(rules, ApiKeys.ALTER_CLIENT_QUOTAS, "", cluster(ALTER_CONFIGS));
        add(rules, ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, "", cluster(DESCRIBE));
        add(rules, ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, "", cluster(ALTER));
        for (ApiKeys tokens : List.of(
                ApiKeys.CREATE_DELEGATION_TOKEN,
                ApiKeys.RENEW_DELEGATION_TOKEN,
                ApiKeys.EXPIRE_DELEGATION_TOKEN,
                ApiKeys.DESCRIBE_DELEGATION_TOKEN)) {
            add(
                    rules,
                    tokens,
                    "token authentication is off: refused before any check (Kafka checks owners and"
                            + " tokens only with it on)");
        }
        add(rules, ApiKeys.DESCRIBE_QUORUM, "", cluster(DESCRIBE));
        add(rules, ApiKeys.UPDATE_FEATURES, "", cluster(ALTER));
        add(
                rules,
                ApiKeys.DESCRIBE_CLUSTER,
                "no permission needed on a broker; the cluster's authorized operations on request"
                        + " (DESCRIBE on the cluster, else 0)");
        add(rules, ApiKeys.DESCRIBE_PRODUCERS, "READ, not DESCRIBE", eachTopic(READ));
        add(rules, ApiKeys.UNREGISTER_BROKER, "", cluster(ALTER));
        add(
                rules,
                ApiKeys.DESCRIBE_TRANSACTIONS,
                "topics of a described transaction the caller cannot describe are left out",
                perItem(
                        TRANSACTIONAL_ID,
                        DESCRIBE,
                        Target.EACH_TRANSACTIONAL_ID,
                        TRANSACTIONAL_ID_AUTHORIZATION_FAILED));
        add(
                rules,
                ApiKeys.LIST_TRANSACTIONS,
                "never an error",
                filtered(TRANSACTIONAL_ID, DESCRIBE, Target.EACH_TRANSACTIONAL_ID));
        add(
                rules,
                ApiKeys.CONSUMER_GROUP_HEARTBEAT,
                "then DESCRIBE on every subscribed topic name (one refused: the top-level"
                        + " TOPIC_AUTHORIZATION_FAILED); topics a regex matches that the caller cannot"
                        + " describe are left out of the subscription",
                readRequestGroup(),
                eachTopic(DESCRIBE));
        add(
                rules,
                ApiKeys.CONSUMER_GROUP_DESCRIBE,
                "a group with an assigned topic the caller cannot describe is answered"
                        + " TOPIC_AUTHORIZATION_FAILED with no members; authorized operations on request",
                eachGroup(DESCRIBE),
                eachTopic(DESCRIBE));
        add(rules, ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS, "no check");
        add(rules, ApiKeys.PUSH_TELEMETRY, "no check");
        add(rules, ApiKeys.LIST_CONFIG_RESOURCES, "", cluster(DESCRIBE_CONFIGS));
        add(
                rules,
                ApiKeys.DESCRIBE_TOPIC_PARTITIONS,
                "all topics: the ones the caller cannot describe are left out; named ones follow with"
                        + " TOPIC_AUTHORIZATION_FAILED",
                eachTopic(DESCRIBE));
        add(
                rules,
                ApiKeys.STREAMS_GROUP_HEARTBEAT,
                "then DESCRIBE on every topology topic (one refused: the top-level"
                        + " TOPIC_AUTHORIZATION_FAILED); internal topics to create need CREATE on the cluster,"
                        + " else on each, and a refusal is the status MISSING_INTERNAL_TOPICS, not an error",
                readRequestGroup(),
                eachTopic(DESCRIBE));
        add(
                rules,
                ApiKeys.STREAMS_GROUP_DESCRIBE,
                "a group using a topic the caller cannot describe is answered TOPIC_AUTHORIZATION_FAILED"
                        + " with no members",
                eachGroup(DESCRIBE),
                eachTopic(DESCRIBE));
        return Collections.unmodifiableMap(rules);
    }

    private static void add(Map<ApiKeys, Rule> rules, ApiKeys api, String note, Check... checks) {
        if (rules.put(api, new Rule(api, List.of(checks), note)) != null) {
            throw new IllegalStateException("two rules for " + api);
        }
    }
}
