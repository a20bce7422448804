package io.tributary.systemtests.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.common.protocol.KafkaFrames;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.common.security.acl.ApiAccess;
import io.tributary.common.security.internal.ClusterSecret;
import io.tributary.common.security.internal.InternalLogin;
import io.tributary.common.security.internal.ScramSocketLogin;
import io.tributary.systemtests.auth.ApiAuthorizationTable.Grant;
import io.tributary.systemtests.auth.ApiAuthorizationTable.Names;
import io.tributary.systemtests.auth.ApiAuthorizationTable.Row;
import io.tributary.systemtests.auth.ApiAuthorizationTable.Setup;
import io.tributary.systemtests.kafka.KafkaTargets;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 24's table test, on live processes: for every API in {@link ApiAuthorizationTable}, a
 * user without ACLs ({@link SecureTargets#USER}) sends the request raw over SASL_SSL and is refused
 * with Kafka's error (or sees the refused resources left out); it is still refused with every other
 * operation on the same resources allowed (all but the needed ones and those implying them: a check
 * of the wrong operation shows there); then the ACLs of exactly the needed operations are granted,
 * stage by stage, and the same request gets through. Apache Kafka ({@code
 * StandardAuthorizer}) and Tributary with the authorizer on ({@link
 * SecureTargets.Security#AUTHORIZER}) answer, and every answer (the API, the version both speak,
 * the ACLs in force, the errors of the answer, what it shows) must be Kafka's line for line.
 *
 * <p>A new API cannot slip through unguarded: every API Tributary's broker (and its coordinator's
 * Kafka listener, which serves brokers only) advertises in ApiVersions must have a row, and
 * Tributary's broker must not advertise one Kafka's broker does not
 * ({@link #everyApiTributaryAdvertisesHasARowAndIsKafkas}). The rows' ACLs must be among the checks
 * of the broker's own table, {@link ApiAccess} ({@link #theRowsGrantOnlyWhatTheBrokersTableChecks}).
 *
 * <p>Run time: one start of each target for the class; the rows share one pass without ACLs, then
 * their ACLs are granted together, in one round for the topic and group ACLs (each row's resources
 * are its own) and one round per set of cluster operations (an ACL on the cluster would otherwise
 * let another row's cluster request through), each round first with every other operation, then
 * with as many stages as its rows have.
 * Before a round's requests the ACLs must be in force on the broker: a probe ACL created with them
 * lets a Metadata request for a probe topic through.
 */
class ApiAuthorizationTableIT {

    private static final Logger log = LoggerFactory.getLogger(ApiAuthorizationTableIT.class);

    /** The principal of the requests. */
    static final String ALICE = "User:" + SecureTargets.USER;

    /** The principal the CreateAcls row creates an ACL for (never a client). */
    static final String NOBODY = "User:authz-nobody";

    /**
     * How long what the test waits for may take (an ACL reaching the broker, a coordinator loading,
     * a member's assignment, the coordinator holding broker 0's key): a hang becomes a failure; not
     * an assertion on speed.
     */
    private static final Duration WAIT_LIMIT = Duration.ofSeconds(30);

    /** The last line of Kafka's outcome when every row met its expectations. */
    private static final String EXPECTATIONS_HELD = "every row refused without its ACLs and let through with them";

    private static SecureTargets targets;

    /** Each target's ApiVersions answer, by target name. */
    private static final Map<String, Map<ApiKeys, ApiVersion>> advertised = new LinkedHashMap<>();

    /** The version of each API every target and kafka-clients speak: the newest they share. */
    private static final Map<ApiKeys, Short> versions = new EnumMap<>(ApiKeys.class);

    @BeforeAll
    static void start() throws Exception {
        targets = SecureTargets.start(
                ApiAuthorizationTableIT.class,
                KafkaTargets.isEnabled(KafkaTargets.Kind.TRIBUTARY),
                SecureTargets.Security.AUTHORIZER);
        for (SecureTargets.Target target : targets.all()) {
            try (SecureRawKafka connection = SecureRawKafka.connect(target.bootstrap(), targets.caPem())) {
                advertised.put(target.name(), connection.apiVersions());
            }
        }
        for (ApiKeys api : ApiKeys.values()) {
            short newest = api.latestVersion();
            short oldest = api.oldestVersion();
            boolean everywhere = true;
            for (Map<ApiKeys, ApiVersion> apis : advertised.values()) {
                ApiVersion offered = apis.get(api);
                if (offered == null) {
                    everywhere = false;
                    break;
                }
                newest = (short) Math.min(newest, offered.maxVersion());
                oldest = (short) Math.max(oldest, offered.minVersion());
            }
            if (everywhere && newest >= oldest) {
                versions.put(api, newest);
            }
        }
    }

    @AfterAll
    static void stop() {
        if (targets != null) {
            targets.close();
        }
    }

    @Test
    void everyApiTributaryAdvertisesHasARowAndIsKafkas() {
        Set<ApiKeys> kafka = advertised.get(SecureDifferential.REFERENCE).keySet();
        Set<ApiKeys> rows = new TreeSet<>();
        ApiAuthorizationTable.ROWS.forEach(row -> rows.add(row.api()));
        Set<ApiKeys> kafkaWithoutRow = new TreeSet<>(kafka);
        kafkaWithoutRow.removeAll(rows);
        log.info("APIs Apache Kafka's broker advertises that the table has no row for: {}", kafkaWithoutRow);
        Set<ApiKeys> rowsNotRun = new TreeSet<>(rows);
        rowsNotRun.removeAll(versions.keySet());
        log.info("rows not run, their API not advertised by every target: {}", rowsNotRun);

        Map<ApiKeys, ApiVersion> tributary = advertised.get("TRIBUTARY");
        Assumptions.assumeTrue(tributary != null, "Tributary is not among the targets");
        Set<ApiKeys> withoutRow = new TreeSet<>(tributary.keySet());
        withoutRow.removeAll(rows);
        assertThat(withoutRow)
                .as("APIs Tributary's broker advertises in ApiVersions without a row in ApiAuthorizationTable")
                .isEmpty();
        Set<ApiKeys> notKafkas = new TreeSet<>(tributary.keySet());
        notKafkas.removeAll(kafka);
        assertThat(notKafkas)
                .as("APIs Tributary's broker advertises that Apache Kafka's broker does not")
                .isEmpty();
        assertThat(rowsNotRun)
                .as("rows of APIs Tributary advertises are all run")
                .doesNotContainAnyElementsOf(tributary.keySet());

        // The coordinator's Kafka listener serves brokers only (they forward their clients' group
        // requests, authorized on the broker), but a new API there must have a row all the same.
        Set<ApiKeys> coordinatorWithoutRow = new TreeSet<>(coordinatorApis().keySet());
        coordinatorWithoutRow.removeAll(rows);
        assertThat(coordinatorWithoutRow)
                .as("APIs Tributary's coordinator advertises in ApiVersions without a row in ApiAuthorizationTable")
                .isEmpty();
    }

    /**
     * What Tributary's coordinator's Kafka listener advertises, asked after broker 0's login (the
     * listener takes none other; the coordinator may need a moment to hold the broker's key).
     */
    private static Map<ApiKeys, ApiVersion> coordinatorApis() {
        InternalLogin broker0 =
                ClusterSecret.of(SecureTargets.CLUSTER_SECRET).brokerKey(0).kafkaLogin();
        return await().atMost(WAIT_LIMIT)
                .ignoreExceptions()
                .until(
                        () -> {
                            try (Socket socket = new Socket()) {
                                socket.connect(
                                        new InetSocketAddress("127.0.0.1", targets.tributaryCoordinatorKafkaPort()),
                                        5_000);
                                socket.setSoTimeout(15_000);
                                ScramSocketLogin.login(socket, broker0, "api-authorization-table-it", 1 << 20);
                                ApiVersionsRequest request = new ApiVersionsRequest.Builder().build();
                                RequestHeader header = new RequestHeader(
                                        ApiKeys.API_VERSIONS, request.version(), "api-authorization-table-it", 1);
                                return SecureRawKafka.byApi(
                                        (ApiVersionsResponse) KafkaFrames.roundTrip(socket, request, header, 1 << 20));
                            }
                        },
                        apis -> !apis.isEmpty());
    }

    @Test
    void theRowsGrantOnlyWhatTheBrokersTableChecks() {
        for (Row row : ApiAuthorizationTable.ROWS) {
            ApiAccess.Rule rule = ApiAccess.of(row.api())
                    .orElseThrow(() -> new AssertionError("ApiAccess has no rule for " + row.api()));
            assertThat(rule.checks().isEmpty())
                    .as("%s: Kafka authorizes it exactly when ApiAccess lists checks", row.name())
                    .isEqualTo(row.stages().isEmpty());
            for (Grant grant : row.grantsUpTo(row.stages().size())) {
                assertThat(rule.checks())
                        .as("%s: ApiAccess checks %s", row.name(), grant)
                        .anyMatch(check -> check.operation()
                                        .name()
                                        .equals(grant.operation().name())
                                && (check.type()
                                                == AclResourceType.valueOf(
                                                        grant.type().name())
                                        || check.target() == ApiAccess.Target.EACH_CONFIG_RESOURCE));
            }
        }
    }

    @Test
    void eachApiIsRefusedWithoutItsAclsAndLetThroughWithThem() {
        SecureDifferential.assertSameOutcomeAtOnce(targets, EXPECTATIONS_HELD, ApiAuthorizationTableIT::runTable);
    }

    private static void runTable(SecureTargets.Target target, List<String> outcome) throws Exception {
        long started = System.nanoTime();
        List<Row> rows = ApiAuthorizationTable.ROWS.stream()
                .filter(row -> versions.containsKey(row.api()))
                .toList();
        Map<Row, List<String>> lines = new LinkedHashMap<>();
        rows.forEach(row -> lines.put(row, new ArrayList<>()));
        try (Admin admin = Admin.create(targets.plainClient(
                        target, SecureTargets.ADMIN, SecureTargets.ADMIN_PASSWORD, "api-authorization-table-it"));
                Alice alice = new Alice(target)) {
            Map<Row, Names> names = setUp(target, admin, rows);
            for (Row row : rows) {
                lines.get(row).add(call(alice, row, names.get(row), "no ACL"));
            }
            int round = 0;
            for (List<Row> roundRows : rounds(rows)) {
                round++;
                int stages = roundRows.stream()
                        .mapToInt(row -> row.stages().size())
                        .max()
                        .orElse(0);
                Set<AclBinding> others = new LinkedHashSet<>();
                for (Row row : roundRows) {
                    for (Grant grant : row.everyOtherOperation()) {
                        others.add(allowAlice(grant, names.get(row)));
                    }
                }
                grant(alice, admin, others, "authz-probe-" + round + "-0");
                for (Row row : roundRows) {
                    lines.get(row)
                            .add(call(
                                    alice,
                                    row,
                                    names.get(row),
                                    "with every other operation " + row.everyOtherOperation()));
                }
                for (int stage = 1; stage <= stages; stage++) {
                    Set<AclBinding> acls = new LinkedHashSet<>();
                    for (Row row : roundRows) {
                        for (Grant grant : row.grantsUpTo(stage)) {
                            acls.add(allowAlice(grant, names.get(row)));
                        }
                    }
                    grant(alice, admin, acls, "authz-probe-" + round + "-" + stage);
                    for (Row row : roundRows) {
                        if (row.stages().size() >= stage) {
                            lines.get(row).add(call(alice, row, names.get(row), "with " + row.grantsUpTo(stage)));
                        }
                    }
                }
                revokeAll(alice, admin, "authz-probe-" + round + "-" + stages);
            }
        }
        lines.values().forEach(outcome::addAll);
        List<String> broken = brokenExpectations(lines);
        outcome.addAll(broken);
        if (broken.isEmpty()) {
            outcome.add(EXPECTATIONS_HELD);
        }
        log.info(
                "{}: {} rows in {} ms",
                target.name(),
                rows.size(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    /**
     * The rows that need ACLs, grouped into rounds: first the rows without cluster operations, then
     * one round per set of cluster operations, in table order.
     */
    private static List<List<Row>> rounds(List<Row> rows) {
        Map<Set<AclOperation>, List<Row>> rounds = new LinkedHashMap<>();
        rounds.put(Set.of(), new ArrayList<>());
        for (Row row : rows) {
            if (!row.stages().isEmpty()) {
                rounds.computeIfAbsent(row.clusterOperations(), k -> new ArrayList<>())
                        .add(row);
            }
        }
        return rounds.values().stream().filter(round -> !round.isEmpty()).toList();
    }

    /** Makes what the rows need (topics, groups with offsets) as the super user; their names. */
    private static Map<Row, Names> setUp(SecureTargets.Target target, Admin admin, List<Row> rows) throws Exception {
        List<NewTopic> topics = rows.stream()
                .filter(row -> row.setup().contains(Setup.TOPIC))
                .map(row -> new NewTopic(row.stem(), 1, (short) 1))
                .toList();
        admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
        Map<String, Uuid> ids = new HashMap<>();
        admin.describeTopics(topics.stream().map(NewTopic::name).toList())
                .allTopicNames()
                .get(60, TimeUnit.SECONDS)
                .forEach((name, description) -> ids.put(name, description.topicId()));
        Map<Row, Names> names = new LinkedHashMap<>();
        for (Row row : rows) {
            if (row.setup().contains(Setup.GROUP_WITH_OFFSETS)) {
                admin.alterConsumerGroupOffsets(
                                row.stem(), Map.of(new TopicPartition(row.stem(), 0), new OffsetAndMetadata(0)))
                        .all()
                        .get(60, TimeUnit.SECONDS);
            }
            Names own = new Names(row.stem(), ids.getOrDefault(row.stem(), Uuid.ZERO_UUID), row.stem());
            if (row.setup().contains(Setup.CONSUMER_GROUP_MEMBER)) {
                joinAsAdmin(target, own);
            }
            names.put(row, own);
        }
        return names;
    }

    /**
     * The super user joins {@code names}' group as a KIP-848 consumer subscribed to its topic, and
     * heartbeats until its topic's partition is assigned (the group's target assignment then names
     * the topic).
     */
    private static void joinAsAdmin(SecureTargets.Target target, Names names) throws Exception {
        try (SecureRawKafka connection = SecureRawKafka.login(
                target.bootstrap(), targets.caPem(), SecureTargets.ADMIN, SecureTargets.ADMIN_PASSWORD)) {
            short version = versions.get(ApiKeys.CONSUMER_GROUP_HEARTBEAT);
            ConsumerGroupHeartbeatRequestData request = ApiAuthorizationTable.joiningConsumerGroup(names);
            await().atMost(WAIT_LIMIT).pollInterval(Duration.ofMillis(100)).until(() -> {
                var response = (ConsumerGroupHeartbeatResponse)
                        connection.send(ApiKeys.CONSUMER_GROUP_HEARTBEAT, version, request);
                var data = response.data();
                if (data.errorCode() != Errors.NONE.code()) {
                    throw new IllegalStateException(
                            "the admin's heartbeat answered " + Errors.forCode(data.errorCode()));
                }
                request.setMemberId(data.memberId()).setMemberEpoch(data.memberEpoch());
                return data.assignment() != null
                        && !data.assignment().topicPartitions().isEmpty();
            });
        }
    }

    /**
     * Alice's connection to one target, logged in once and used for request after request (as a
     * client's is, so an ACL change must reach connections already open), opened again after a
     * request that failed on it. The SASL APIs, sent after the login, get a connection of their own.
     */
    private static final class Alice implements AutoCloseable {
        private static final Set<ApiKeys> ON_A_CONNECTION_OF_THEIR_OWN =
                Set.of(ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_AUTHENTICATE);

        private final SecureTargets.Target target;
        private SecureRawKafka connection;

        Alice(SecureTargets.Target target) {
            this.target = target;
        }

        private SecureRawKafka login() throws IOException {
            return SecureRawKafka.login(
                    target.bootstrap(), targets.caPem(), SecureTargets.USER, SecureTargets.PASSWORD);
        }

        AbstractResponse send(ApiKeys api, short version, ApiMessage data) throws IOException {
            if (ON_A_CONNECTION_OF_THEIR_OWN.contains(api)) {
                try (SecureRawKafka own = login()) {
                    return own.send(api, version, data);
                }
            }
            if (connection == null) {
                connection = login();
            }
            try {
                return connection.send(api, version, data);
            } catch (IOException | RuntimeException e) {
                close();
                throw e;
            }
        }

        @Override
        public void close() throws IOException {
            if (connection != null) {
                SecureRawKafka open = connection;
                connection = null;
                open.close();
            }
        }
    }

    /** One request of {@code row} as {@link SecureTargets#USER}: its outcome line. */
    private static String call(Alice alice, Row row, Names names, String acls) {
        short version = versions.get(row.api());
        String answer;
        try {
            var response = alice.send(row.api(), version, row.request().data(names, version));
            long deadline = System.nanoTime() + WAIT_LIMIT.toNanos();
            while (retriable(response) && System.nanoTime() < deadline) {
                Thread.sleep(100);
                response = alice.send(row.api(), version, row.request().data(names, version));
            }
            String shows = row.shows().of(response, names);
            answer = ApiAuthorizationTable.errors(response) + (shows.isEmpty() ? "" : ", " + shows);
        } catch (Exception e) {
            answer = "failed " + e.getClass().getSimpleName();
        }
        return row.name() + " v" + version + " " + acls + ": " + answer;
    }

    /**
     * Whether {@code response} asks to be tried again later: a coordinator still loading (Kafka's
     * broker answers an idempotent producer's first InitProducerId so until its producer ids are
     * ready), as kafka-clients retries.
     */
    private static boolean retriable(AbstractResponse response) {
        return response.errorCounts().containsKey(Errors.COORDINATOR_LOAD_IN_PROGRESS)
                || response.errorCounts().containsKey(Errors.COORDINATOR_NOT_AVAILABLE);
    }

    /**
     * What Kafka's answers must be for the table to hold: refused without ACLs with the row's
     * refusal; refused with every other operation on the row's resources, and at each stage but
     * the last (the next check); let through at the last; an API without checks never refused. One
     * line per broken expectation.
     */
    private static List<String> brokenExpectations(Map<Row, List<String>> lines) {
        List<String> broken = new ArrayList<>();
        lines.forEach((row, answers) -> {
            String first = answers.getFirst();
            String last = answers.getLast();
            if (row.stages().isEmpty()) {
                if (first.contains("AUTHORIZATION_FAILED") || first.contains(": failed ")) {
                    broken.add("expectation broken, not refused: " + first);
                }
                return;
            }
            if (!first.contains(row.refusal())) {
                broken.add("expectation broken, refused with " + row.refusal() + ": " + first);
            }
            for (String middle : answers.subList(1, answers.size() - 1)) {
                if (!middle.contains("AUTHORIZATION_FAILED") && !middle.contains("listed false")) {
                    broken.add("expectation broken, refused by the next check: " + middle);
                }
            }
            if (last.contains("AUTHORIZATION_FAILED") || last.contains(": failed ") || last.contains("listed false")) {
                broken.add("expectation broken, let through: " + last);
            }
        });
        return broken;
    }

    private static AclBinding allowAlice(Grant grant, Names names) {
        String resource = switch (grant.type()) {
            case TOPIC -> names.topic();
            case GROUP -> names.group();
            case CLUSTER -> ApiAuthorizationTable.CLUSTER_NAME;
            default -> throw new IllegalArgumentException("no resource of the row's for " + grant);
        };
        return new AclBinding(
                new ResourcePattern(grant.type(), resource, PatternType.LITERAL),
                new AccessControlEntry(ALICE, "*", grant.operation(), AclPermissionType.ALLOW));
    }

    private static final AclBindingFilter ALICES = new AclBindingFilter(
            ResourcePatternFilter.ANY,
            new AccessControlEntryFilter(ALICE, null, AclOperation.ANY, AclPermissionType.ANY));

    /**
     * Adds {@code acls} and Alice's DESCRIBE on the topic {@code probe} to her ACLs, and waits
     * until the broker has them: its ACL count, and a Metadata request for {@code probe} (which does
     * not exist) no longer refused.
     */
    private static void grant(Alice alice, Admin admin, Set<AclBinding> acls, String probe) throws Exception {
        Set<AclBinding> all = new LinkedHashSet<>(acls);
        all.add(new AclBinding(
                new ResourcePattern(ResourceType.TOPIC, probe, PatternType.LITERAL),
                new AccessControlEntry(ALICE, "*", AclOperation.DESCRIBE, AclPermissionType.ALLOW)));
        admin.createAcls(List.copyOf(all)).all().get(60, TimeUnit.SECONDS);
        long created = System.nanoTime();
        // the earlier stages' ACLs are still there: at least as many as this stage's
        awaitOnTheBroker(alice, admin, count -> count >= all.size(), probe, false);
        log.debug(
                "{}: {} ACLs in force {} ms after createAcls returned",
                alice.target.name(),
                all.size(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - created));
    }

    /** Deletes Alice's ACLs and waits until the broker has none of them (the probe refused again). */
    private static void revokeAll(Alice alice, Admin admin, String probe) throws Exception {
        admin.deleteAcls(List.of(ALICES)).all().get(60, TimeUnit.SECONDS);
        awaitOnTheBroker(alice, admin, count -> count == 0, probe, true);
    }

    /**
     * Waits until the broker describes a number of Alice's ACLs that {@code count} accepts, and
     * Alice's Metadata request for {@code probe} is refused or not as {@code probeRefused} says.
     */
    private static void awaitOnTheBroker(
            Alice alice, Admin admin, IntPredicate count, String probe, boolean probeRefused) {
        await().atMost(WAIT_LIMIT)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> count.test(admin.describeAcls(ALICES)
                                .values()
                                .get(60, TimeUnit.SECONDS)
                                .size())
                        && probe(alice, probe).contains("TOPIC_AUTHORIZATION_FAILED") == probeRefused);
    }

    /** Alice's Metadata request for the topic {@code probe}: its errors. */
    private static String probe(Alice alice, String probe) {
        Row row = new Row(
                ApiKeys.METADATA,
                "probe",
                List.of(),
                null,
                Set.of(),
                (names, version) -> new MetadataRequestData()
                        .setAllowAutoTopicCreation(false)
                        .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(probe))),
                (response, names) -> "");
        return call(alice, row, new Names(probe, Uuid.ZERO_UUID, probe), "probe");
    }
}
