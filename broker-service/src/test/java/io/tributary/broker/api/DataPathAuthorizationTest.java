package io.tributary.broker.api;

import static io.tributary.broker.api.DataPathFixture.ORDERS;
import static io.tributary.broker.api.DataPathFixture.REPLICATED;
import static io.tributary.broker.api.DataPathFixture.fetchRequest;
import static io.tributary.broker.api.DataPathFixture.produceRequest;
import static io.tributary.broker.api.DataPathFixture.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tributary.broker.api.DataPathFixture.Fetch;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.security.acl.AclAuthorizer;
import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclPatternType;
import io.tributary.common.security.acl.AclPermission;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.common.security.acl.KafkaPrincipal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteRecordsResponse;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data path's per-topic ACL checks ({@link io.tributary.common.security.acl.ApiAccess}) over a
 * real {@link AclAuthorizer} with {@code allow.everyone.if.no.acl.found=false}, for the fixture's
 * caller ({@code User:ANONYMOUS} from 127.0.0.1): Produce needs WRITE, Fetch READ (a follower
 * CLUSTER_ACTION on the cluster), ListOffsets DESCRIBE; a refusal is TOPIC_AUTHORIZATION_FAILED on
 * the topic's partitions, as Kafka answers.
 */
class DataPathAuthorizationTest {

    private static final AclAuthorizer.Settings CLOSED = new AclAuthorizer.Settings(Set.of(), false);

    @TempDir
    Path dir;

    private final List<AclBinding> bindings = new ArrayList<>();
    private final AtomicReference<AclAuthorizer> acls = new AtomicReference<>(AclAuthorizer.empty(CLOSED));
    private DataPathFixture fixture;
    private ProduceHandler produce;
    private FetchHandler fetch;
    private ListOffsetsHandler listOffsets;
    private DeleteRecordsHandler deleteRecords;
    private OffsetForLeaderEpochHandler offsetForLeaderEpoch;

    @BeforeEach
    void start() {
        fixture = new DataPathFixture(dir);
        AccessControl access = AccessControl.of(acls::get);
        produce = new ProduceHandler(
                fixture.replicas, fixture.metadata, Duration.ofSeconds(30), DataPathMetrics.NONE, access);
        fetch = new FetchHandler(
                fixture.replicas, fixture.metadata, Duration.ofSeconds(30), DataPathMetrics.NONE, access);
        listOffsets = new ListOffsetsHandler(fixture.replicas, fixture.metadata, access);
        deleteRecords = new DeleteRecordsHandler(fixture.replicas, fixture.metadata, access);
        offsetForLeaderEpoch = new OffsetForLeaderEpochHandler(fixture.replicas, fixture.metadata, access);
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    private void allow(AclResourceType type, String name, AclOperation operation) {
        bindings.add(new AclBinding(
                type, name, AclPatternType.LITERAL, "User:ANONYMOUS", "127.0.0.1", operation, AclPermission.ALLOW));
        acls.set(AclAuthorizer.of(bindings, CLOSED));
    }

    private Errors produced(int version, String topic, Uuid id) {
        ProduceResponse response = fixture.call(
                produce, produceRequest(version, (short) 1, 5_000, topic, id, 0, records(2)), ProduceResponse.class);
        return Errors.forCode(response.data()
                .responses()
                .iterator()
                .next()
                .partitionResponses()
                .getFirst()
                .errorCode());
    }

    private Errors fetched(int replicaId, Fetch partition) {
        return fetchedAs(fetch, KafkaPrincipal.ANONYMOUS, replicaId, partition);
    }

    @Test
    void produceNeedsWriteOnTheTopicEvenOneThatDoesNotExist() {
        assertThat(produced(11, "orders", ORDERS)).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
        assertThat(fixture.partition("orders", 0).log().logEndOffset()).isZero();
        assertThat(produced(11, "no-such-topic", Uuid.ZERO_UUID)).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
        // an unknown topic id has no name to check: Kafka answers it first
        assertThat(produced(13, "", Uuid.randomUuid())).isEqualTo(Errors.UNKNOWN_TOPIC_ID);

        allow(AclResourceType.TOPIC, "orders", AclOperation.WRITE);
        assertThat(produced(11, "orders", ORDERS)).isEqualTo(Errors.NONE);
        assertThat(produced(13, "", ORDERS)).isEqualTo(Errors.NONE);
        assertThat(produced(11, "no-such-topic", Uuid.ZERO_UUID)).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
        allow(AclResourceType.TOPIC, "no-such-topic", AclOperation.WRITE);
        assertThat(produced(11, "no-such-topic", Uuid.ZERO_UUID)).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }

    @Test
    void aConsumerFetchNeedsReadAndAFollowerFetchClusterAction() {
        allow(AclResourceType.TOPIC, "orders", AclOperation.WRITE);
        assertThat(fetched(-1, new Fetch("orders", ORDERS, 0, 0))).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
        allow(AclResourceType.TOPIC, "orders", AclOperation.READ);
        assertThat(fetched(-1, new Fetch("orders", ORDERS, 0, 0))).isEqualTo(Errors.NONE);

        allow(AclResourceType.TOPIC, "replicated", AclOperation.READ);
        assertThat(fetched(1, new Fetch("replicated", REPLICATED, 0, 0))).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
        allow(AclResourceType.CLUSTER, AclResourceType.CLUSTER_NAME, AclOperation.CLUSTER_ACTION);
        assertThat(fetched(1, new Fetch("replicated", REPLICATED, 0, 0))).isEqualTo(Errors.NONE);
    }

    @Test
    void aBrokerIsAllowedToFetchAsAFollowerWithoutAclsButOnlyAsItself() {
        KafkaPrincipal broker1 = KafkaPrincipal.user("tributary-broker-1");
        Fetch replicated = new Fetch("replicated", REPLICATED, 0, 0);

        assertThat(fetchedAs(fetch, broker1, 1, replicated)).isEqualTo(Errors.NONE);
        assertThat(fetchedAs(fetch, broker1, 0, replicated)).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
        // without an authorizer too: a broker never acts for another
        FetchHandler open = new FetchHandler(
                fixture.replicas, fixture.metadata, Duration.ofSeconds(30), DataPathMetrics.NONE, AccessControl.OPEN);
        assertThat(fetchedAs(open, broker1, 0, replicated)).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
        assertThat(fetchedAs(open, broker1, 1, replicated)).isEqualTo(Errors.NONE);
        // another principal with CLUSTER_ACTION may fetch as any replica, as in Kafka
        assertThat(fetchedAs(open, KafkaPrincipal.user("admin"), 0, replicated)).isEqualTo(Errors.NONE);
    }

    private Errors fetchedAs(FetchHandler handler, KafkaPrincipal principal, int replicaId, Fetch partition) {
        FetchResponse response = fixture.call(
                handler,
                fetchRequest(12, replicaId, 0, 0, Integer.MAX_VALUE, partition),
                FetchResponse.class,
                principal);
        return Errors.forCode(
                response.data().responses().getFirst().partitions().getFirst().errorCode());
    }

    @Test
    void listOffsetsNeedsDescribeAndListsRefusedTopicsLast() {
        allow(AclResourceType.TOPIC, "orders", AclOperation.READ); // READ implies DESCRIBE
        List<ListOffsetsRequestData.ListOffsetsTopic> topics = new ArrayList<>();
        for (String name : List.of("replicated", "orders")) {
            var topic = new ListOffsetsRequestData.ListOffsetsTopic().setName(name);
            topic.partitions()
                    .add(new ListOffsetsRequestData.ListOffsetsPartition()
                            .setPartitionIndex(0)
                            .setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP)
                            .setCurrentLeaderEpoch(-1));
            topics.add(topic);
        }
        ListOffsetsRequest request = ListOffsetsRequest.Builder.forConsumer(false, IsolationLevel.READ_UNCOMMITTED)
                .setTargetTimes(topics)
                .build((short) 9);
        ListOffsetsResponse response = fixture.call(listOffsets, request, ListOffsetsResponse.class);

        assertThat(response.topics())
                .extracting(
                        t -> t.name(),
                        t -> Errors.forCode(t.partitions().getFirst().errorCode()))
                .containsExactly(tuple("orders", Errors.NONE), tuple("replicated", Errors.TOPIC_AUTHORIZATION_FAILED));
        assertThat(response.topics().get(1).partitions().getFirst().offset()).isEqualTo(-1);
    }

    private Errors recordsDeleted(String topic) {
        var data = DataPathFixture.deleteRecordsData(topic, -1);
        DeleteRecordsResponse response = fixture.call(
                deleteRecords, new DeleteRecordsRequest.Builder(data).build((short) 2), DeleteRecordsResponse.class);
        var partition = DataPathFixture.onlyPartition(response);
        return Errors.forCode(partition.errorCode());
    }

    @Test
    void deleteRecordsNeedsDeleteOnTheTopicEvenOneThatDoesNotExist() {
        allow(AclResourceType.TOPIC, "orders", AclOperation.WRITE);
        assertThat(recordsDeleted("orders")).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
        assertThat(recordsDeleted("no-such-topic")).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
        allow(AclResourceType.TOPIC, "orders", AclOperation.DELETE);
        assertThat(recordsDeleted("orders")).isEqualTo(Errors.NONE);
    }

    private Errors epochEnd(int replicaId) {
        var data = DataPathFixture.ordersEpochEndData(replicaId);
        OffsetsForLeaderEpochResponse response = fixture.call(
                offsetForLeaderEpoch,
                new OffsetsForLeaderEpochRequest(data, (short) 4),
                OffsetsForLeaderEpochResponse.class);
        return Errors.forCode(response.data()
                .topics()
                .iterator()
                .next()
                .partitions()
                .getFirst()
                .errorCode());
    }

    @Test
    void offsetForLeaderEpochNeedsClusterActionOrDescribeOnTheTopic() {
        assertThat(epochEnd(OffsetsForLeaderEpochRequest.CONSUMER_REPLICA_ID))
                .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
        allow(AclResourceType.CLUSTER, AclResourceType.CLUSTER_NAME, AclOperation.CLUSTER_ACTION);
        assertThat(epochEnd(OffsetsForLeaderEpochRequest.CONSUMER_REPLICA_ID)).isEqualTo(Errors.NONE);
    }

    @Test
    void offsetForLeaderEpochOfAConsumerWithDescribeOnTheTopic() {
        allow(AclResourceType.TOPIC, "orders", AclOperation.READ); // READ implies DESCRIBE
        assertThat(epochEnd(OffsetsForLeaderEpochRequest.CONSUMER_REPLICA_ID)).isEqualTo(Errors.NONE);
    }
}
