package io.tributary.systemtests.auth;

import static org.apache.kafka.common.acl.AclOperation.ALTER;
import static org.apache.kafka.common.acl.AclOperation.ALTER_CONFIGS;
import static org.apache.kafka.common.acl.AclOperation.CLUSTER_ACTION;
import static org.apache.kafka.common.acl.AclOperation.CREATE;
import static org.apache.kafka.common.acl.AclOperation.DELETE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE_CONFIGS;
import static org.apache.kafka.common.acl.AclOperation.IDEMPOTENT_WRITE;
import static org.apache.kafka.common.acl.AclOperation.READ;
import static org.apache.kafka.common.acl.AclOperation.WRITE;
import static org.apache.kafka.common.resource.ResourceType.CLUSTER;
import static org.apache.kafka.common.resource.ResourceType.GROUP;
import static org.apache.kafka.common.resource.ResourceType.TOPIC;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The table {@link ApiAuthorizationTableIT} runs: for each Kafka API a broker serves, one or more
 * rows, each a request sent raw as a user without ACLs, the ACLs that let the same request through
 * (in stages, when Kafka makes more than one check: each stage adds one operation, so each check is
 * seen refusing on its own), and the error a refused caller gets from Apache Kafka. The operations
 * granted must be among the checks {@code io.tributary.common.security.acl.ApiAccess} (the broker's
 * own table) lists for the API, so the live test and the broker's table cannot drift apart.
 *
 * <p>Every resource a row names is its own: its topic, group and new topic are named after its API
 * and variant, so ACLs granted for one row cannot let another's request through (the cluster is the
 * exception: {@link ApiAuthorizationTableIT} grants cluster operations in rounds of their own).
 * Requests that change something change only the row's own resources, or none (an unknown member, a
 * user of the row's own name).
 *
 * <p>An allowed request is one past authorization: its answer has no {@code *_AUTHORIZATION_FAILED}
 * error (an unknown member's heartbeat answers {@code UNKNOWN_MEMBER_ID}, which is Kafka's answer to
 * an authorized caller).
 */
final class ApiAuthorizationTable {

    private ApiAuthorizationTable() {}

    /** The cluster resource's name, the only one Kafka accepts in a cluster ACL. */
    static final String CLUSTER_NAME = "kafka-cluster";

    /** One ACL a stage grants: {@code operation} on the row's own resource of {@code type}. */
    record Grant(ResourceType type, AclOperation operation) {
        Grant {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(operation, "operation");
        }

        @Override
        public String toString() {
            return type + ":" + operation;
        }
    }

    /** What a row needs before its first request, made by the super user. */
    enum Setup {
        /** Its topic exists, one partition. */
        TOPIC,
        /** Its group exists: the super user committed offset 0 of the row's topic's partition 0 in it. */
        GROUP_WITH_OFFSETS,
        /**
         * Its group is a consumer group (KIP-848) with one member, subscribed to the row's topic and
         * assigned its partition: the super user's ConsumerGroupHeartbeat.
         */
        CONSUMER_GROUP_MEMBER
    }

    /** The row's own resources on one target. */
    record Names(String topic, Uuid topicId, String group) {}

    /** The request of a row, built for {@code version}. */
    @FunctionalInterface
    interface Request {
        ApiMessage data(Names names, short version);
    }

    /** What of an answer goes into the outcome, besides its errors. */
    @FunctionalInterface
    interface Shows {
        String of(AbstractResponse response, Names names);
    }

    /**
     * One row.
     *
     * @param api the API
     * @param variant what distinguishes this row among the API's rows ("" for the only one)
     * @param stages the ACLs that let the request through, added stage by stage; empty for an API
     *     Kafka does not authorize
     * @param refusal what Kafka's answer without ACLs holds (an error name, or a {@link Shows} text
     *     for answers that leave refused things out); null for an API Kafka does not authorize
     * @param setup what the row needs before its first request
     * @param request the request
     * @param shows what of the answer to write down besides its errors
     */
    record Row(
            ApiKeys api,
            String variant,
            List<List<Grant>> stages,
            String refusal,
            Set<Setup> setup,
            Request request,
            Shows shows) {
        Row {
            Objects.requireNonNull(api, "api");
            Objects.requireNonNull(variant, "variant");
            stages = stages.stream().map(List::copyOf).toList();
            setup = Set.copyOf(setup);
            Objects.requireNonNull(request, "request");
            Objects.requireNonNull(shows, "shows");
            if (stages.isEmpty() != (refusal == null)) {
                throw new IllegalArgumentException(api + ": a refusal exactly when ACLs are needed");
            }
        }

        /** The row's name in outcomes and resource names. */
        String name() {
            return variant.isEmpty() ? api.name() : api.name() + " (" + variant + ")";
        }

        /** The row's resources' name stem: {@code authz-} and the API and variant in kebab case. */
        String stem() {
            String kebab = (api.name() + (variant.isEmpty() ? "" : "-" + variant))
                    .toLowerCase(Locale.ROOT)
                    .replaceAll("[^a-z0-9]+", "-");
            return "authz-" + kebab;
        }

        /** The ACLs of the first {@code count} stages. */
        List<Grant> grantsUpTo(int count) {
            List<Grant> grants = new ArrayList<>();
            stages.subList(0, Math.min(count, stages.size())).forEach(grants::addAll);
            return grants;
        }

        /**
         * Every operation on the resources the row needs but the needed ones and those that imply
         * them ({@link #implying}): with all of these the request must still be refused, so that a
         * check of the wrong operation (one the needed operation implies, or a neighbour) shows.
         */
        List<Grant> everyOtherOperation() {
            List<Grant> needed = grantsUpTo(stages.size());
            List<Grant> others = new ArrayList<>();
            for (ResourceType type : needed.stream().map(Grant::type).distinct().toList()) {
                Set<AclOperation> excluded = new HashSet<>();
                needed.stream().filter(g -> g.type() == type).forEach(g -> excluded.addAll(implying(g.operation())));
                for (AclOperation operation : OPERATIONS.get(type)) {
                    if (!excluded.contains(operation)) {
                        others.add(new Grant(type, operation));
                    }
                }
            }
            return others;
        }

        /** The cluster operations this row's stages grant (rows are grouped into rounds by these). */
        Set<AclOperation> clusterOperations() {
            return Set.copyOf(grantsUpTo(stages.size()).stream()
                    .filter(g -> g.type() == CLUSTER)
                    .map(Grant::operation)
                    .toList());
        }
    }

    /**
     * The operations an ACL can allow on each resource type the table uses, as Kafka's
     * documentation lists them ("Operations and Resources on Protocols").
     */
    static final Map<ResourceType, List<AclOperation>> OPERATIONS = Map.of(
            TOPIC,
            List.of(READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS),
            GROUP,
            List.of(READ, DESCRIBE, DELETE),
            CLUSTER,
            List.of(CREATE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE, ALTER, DESCRIBE));

    /**
     * {@code operation} and the operations whose ALLOW also allows it, as Kafka's authorizer has
     * them: DESCRIBE is allowed by READ, WRITE, DELETE and ALTER; DESCRIBE_CONFIGS by ALTER_CONFIGS.
     */
    static Set<AclOperation> implying(AclOperation operation) {
        return switch (operation) {
            case DESCRIBE -> Set.of(DESCRIBE, READ, WRITE, DELETE, ALTER);
            case DESCRIBE_CONFIGS -> Set.of(DESCRIBE_CONFIGS, ALTER_CONFIGS);
            default -> Set.of(operation);
        };
    }

    /** An answer's errors other than NONE, by name, with how often each occurs. */
    static String errors(AbstractResponse response) {
        Map<String, Integer> errors = new TreeMap<>();
        response.errorCounts().forEach((error, count) -> {
            if (error != Errors.NONE) {
                errors.put(error.name(), count);
            }
        });
        return "errors " + errors;
    }

    static final Shows ERRORS_ONLY = (response, names) -> "";

    static List<Grant> stage(Grant... grants) {
        return List.of(grants);
    }

    static Grant on(ResourceType type, AclOperation operation) {
        return new Grant(type, operation);
    }

    static Row row(ApiKeys api, String refusal, Set<Setup> setup, Request request, List<List<Grant>> stages) {
        return new Row(api, "", stages, refusal, setup, request, ERRORS_ONLY);
    }

    static final Set<Setup> TOPIC_ONLY = Set.of(Setup.TOPIC);
    static final Set<Setup> TOPIC_AND_GROUP = Set.of(Setup.TOPIC, Setup.GROUP_WITH_OFFSETS);

    static final String TOPIC_REFUSED = Errors.TOPIC_AUTHORIZATION_FAILED.name();
    static final String GROUP_REFUSED = Errors.GROUP_AUTHORIZATION_FAILED.name();
    static final String CLUSTER_REFUSED = Errors.CLUSTER_AUTHORIZATION_FAILED.name();

    /** A new member's first ConsumerGroupHeartbeat: into the row's group, subscribed to the row's topic. */
    static ConsumerGroupHeartbeatRequestData joiningConsumerGroup(Names names) {
        return new ConsumerGroupHeartbeatRequestData()
                .setGroupId(names.group())
                .setMemberId(Uuid.randomUuid().toString())
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(10_000)
                .setSubscribedTopicNames(List.of(names.topic()))
                .setTopicPartitions(List.of());
    }

    /**
     * The table, in the order of Kafka's API keys: the rows of the APIs clients use to produce,
     * consume and join groups ({@link ClientApiRows}), and of the administrative ones ({@link
     * AdminApiRows}).
     */
    static final List<Row> ROWS = rows();

    private static List<Row> rows() {
        List<Row> rows = new ArrayList<>(ClientApiRows.rows());
        rows.addAll(AdminApiRows.rows());
        // stable: an API's rows keep their order
        rows.sort(Comparator.comparingInt(row -> row.api().id));
        return Collections.unmodifiableList(rows);
    }
}
