package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tributary.broker.api.AdminApiConfig.AutoCreateTopics;
import io.tributary.broker.log.TopicConfigDefaults;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.security.acl.AclAuthorizer;
import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclPatternType;
import io.tributary.common.security.acl.AclPermission;
import io.tributary.common.security.acl.AclResourceType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Test;

/**
 * Metadata with an authorizer ({@code allow.everyone.if.no.acl.found=false}), for the caller {@code
 * User:ANONYMOUS} from 127.0.0.1: the answers Kafka's {@code KafkaApis} gives (all topics: the
 * describable ones only; a named topic without DESCRIBE: TOPIC_AUTHORIZATION_FAILED whether or not
 * it exists; by id: the id without the name; auto-creation needs CREATE; authorized operations are
 * the caller's).
 */
class MetadataAuthorizationTest {

    private static final AclAuthorizer.Settings CLOSED = new AclAuthorizer.Settings(Set.of(), false);

    private final FakeControlPlane controlPlane = FakeControlPlane.withBrokers(2);
    private final List<AclBinding> bindings = new ArrayList<>();
    private final AtomicReference<AclAuthorizer> acls = new AtomicReference<>(AclAuthorizer.empty(CLOSED));
    private final AccessControl access = AccessControl.of(acls::get);

    private void allow(AclResourceType type, String name, AclOperation operation) {
        bindings.add(new AclBinding(
                type, name, AclPatternType.LITERAL, "User:ANONYMOUS", "127.0.0.1", operation, AclPermission.ALLOW));
        acls.set(AclAuthorizer.of(bindings, CLOSED));
    }

    private MetadataHandler handler() {
        return new MetadataHandler(
                FakeMetadataView.fixed(TestImages.cluster(), 0), controlPlane, AdminApiConfig.defaults(), access);
    }

    private MetadataHandler autoCreating() {
        var autoCreate = new AdminApiConfig(
                "c", 3, (short) 2, AutoCreateTopics.ENABLED, 10, Duration.ofSeconds(1), TopicConfigDefaults.kafka());
        return new MetadataHandler(FakeMetadataView.following(controlPlane, 0), controlPlane, autoCreate, access);
    }

    @Test
    void allTopicsListsOnlyTheTopicsTheCallerMayDescribe() {
        assertThat(Wire.<MetadataResponse>call(handler(), MetadataRequest.Builder.allTopics(), 12)
                        .data()
                        .topics())
                .isEmpty();

        allow(AclResourceType.TOPIC, "orders", AclOperation.WRITE); // WRITE implies DESCRIBE
        MetadataResponse response = Wire.call(handler(), MetadataRequest.Builder.allTopics(), 12);

        assertThat(response.data().topics())
                .extracting(MetadataResponseTopic::name)
                .containsExactly("orders");
    }

    @Test
    void aNamedTopicWithoutDescribeIsRefusedWhetherOrNotItExists() {
        allow(AclResourceType.TOPIC, "events", AclOperation.DESCRIBE);
        MetadataResponse response = Wire.call(
                handler(), new MetadataRequest.Builder(List.of("orders", "nope", "bad name", "events"), false), 12);

        assertThat(response.data().topics())
                .extracting(MetadataResponseTopic::name, t -> Errors.forCode(t.errorCode()))
                .containsExactly(
                        tuple("orders", Errors.TOPIC_AUTHORIZATION_FAILED),
                        tuple("nope", Errors.TOPIC_AUTHORIZATION_FAILED),
                        tuple("bad name", Errors.TOPIC_AUTHORIZATION_FAILED),
                        tuple("events", Errors.NONE));
        assertThat(response.data().topics().find("orders").partitions()).isEmpty();
        assertThat(response.data().topics().find("orders").topicId()).isEqualTo(Uuid.ZERO_UUID);
    }

    @Test
    void aTopicAskedForByIdWithoutDescribeKeepsItsIdButNotItsName() {
        var data = new MetadataRequestData();
        data.topics().add(new MetadataRequestData.MetadataRequestTopic().setTopicId(TestImages.ORDERS_ID));
        data.topics().add(new MetadataRequestData.MetadataRequestTopic().setTopicId(Uuid.randomUuid()));
        MetadataResponse response = Wire.call(handler(), new MetadataRequest(data, (short) 12));

        assertThat(response.data().topics())
                .extracting(MetadataResponseTopic::name, t -> Errors.forCode(t.errorCode()))
                .containsExactly(tuple(null, Errors.TOPIC_AUTHORIZATION_FAILED), tuple(null, Errors.UNKNOWN_TOPIC_ID));
        assertThat(response.data().topics().iterator().next().topicId()).isEqualTo(TestImages.ORDERS_ID);
    }

    @Test
    void autoCreationNeedsCreateOnTheClusterOrTheTopic() {
        allow(AclResourceType.TOPIC, "fresh", AclOperation.DESCRIBE);
        MetadataResponse refused = Wire.call(autoCreating(), new MetadataRequest.Builder(List.of("fresh"), true), 12);
        assertThat(refused.data().topics().find("fresh").errorCode())
                .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        assertThat(controlPlane.image().topic("fresh")).isEmpty();

        allow(AclResourceType.TOPIC, "fresh", AclOperation.CREATE);
        MetadataResponse created = Wire.call(autoCreating(), new MetadataRequest.Builder(List.of("fresh"), true), 12);
        assertThat(created.data().topics().find("fresh").errorCode()).isEqualTo(Errors.LEADER_NOT_AVAILABLE.code());

        allow(AclResourceType.TOPIC, "fresher", AclOperation.DESCRIBE);
        allow(AclResourceType.CLUSTER, AclResourceType.CLUSTER_NAME, AclOperation.CREATE);
        MetadataResponse byCluster =
                Wire.call(autoCreating(), new MetadataRequest.Builder(List.of("fresher"), true), 12);
        assertThat(byCluster.data().topics().find("fresher").errorCode()).isEqualTo(Errors.LEADER_NOT_AVAILABLE.code());
    }

    @Test
    void authorizedOperationsAreTheCallersOwn() {
        allow(AclResourceType.TOPIC, "orders", AclOperation.READ);
        MetadataResponse response = Wire.call(
                handler(),
                new MetadataRequest(
                        new MetadataRequestData()
                                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("orders")))
                                .setIncludeClusterAuthorizedOperations(true)
                                .setIncludeTopicAuthorizedOperations(true),
                        (short) 10));

        assertThat(response.data().topics().find("orders").topicAuthorizedOperations())
                .isEqualTo(1 << AclOperation.READ.code() | 1 << AclOperation.DESCRIBE.code());
        assertThat(response.data().clusterAuthorizedOperations()).isZero(); // no DESCRIBE on the cluster

        allow(AclResourceType.CLUSTER, AclResourceType.CLUSTER_NAME, AclOperation.ALTER);
        MetadataResponse withCluster = Wire.call(
                handler(),
                new MetadataRequest(
                        new MetadataRequestData().setTopics(List.of()).setIncludeClusterAuthorizedOperations(true),
                        (short) 10));
        assertThat(withCluster.data().clusterAuthorizedOperations())
                .isEqualTo(1 << AclOperation.ALTER.code() | 1 << AclOperation.DESCRIBE.code());
    }
}
