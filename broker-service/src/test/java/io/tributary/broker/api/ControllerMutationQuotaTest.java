package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.cluster.ClusterQuotas;
import io.tributary.broker.log.TopicConfigDefaults;
import io.tributary.broker.quota.ControllerMutationQuota;
import io.tributary.broker.quota.QuotaConfig;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.security.quota.QuotaEntity;
import io.tributary.common.security.quota.QuotaKey;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.junit.jupiter.api.Test;

/**
 * {@code controller_mutation_rate} through the real CreateTopics, CreatePartitions and DeleteTopics
 * handlers on a manual clock: Kafka's token bucket (burst = quota × 11 windows of 1 s), strict
 * versions refusing topics with THROTTLING_QUOTA_EXCEEDED once the bucket is below zero, older
 * versions accepting everything and answering the throttle.
 */
class ControllerMutationQuotaTest {

    private final AtomicLong nowMs = new AtomicLong(5_000_000);
    private final InstantSource clock = () -> Instant.ofEpochMilli(nowMs.get());
    private final FakeControlPlane controlPlane = FakeControlPlane.withBrokers(1);
    private final FakeMetadataView metadata = FakeMetadataView.following(controlPlane, 0);
    private final AdminApiConfig config = new AdminApiConfig(
            "c",
            1,
            (short) 1,
            AdminApiConfig.AutoCreateTopics.DISABLED,
            10,
            Duration.ofSeconds(5),
            TopicConfigDefaults.kafka());
    private ClusterQuotas quotas = ClusterQuotas.EMPTY;
    private final ControllerMutationQuota quota = new ControllerMutationQuota(
            new QuotaConfig(11, Duration.ofSeconds(1), 100),
            () -> quotas,
            clock,
            ControllerMutationQuota.Listener.NONE);
    private final CreateTopicsHandler create =
            new CreateTopicsHandler(metadata, controlPlane, config, AccessControl.OPEN, quota);
    private final CreatePartitionsHandler grow =
            new CreatePartitionsHandler(metadata, controlPlane, config, AccessControl.OPEN, quota);
    private final DeleteTopicsHandler delete =
            new DeleteTopicsHandler(metadata, controlPlane, config, AccessControl.OPEN, quota);

    /** {@link Wire}'s client id under {@code perSecond} partition mutations. */
    private void limit(double perSecond) {
        quotas = new ClusterQuotas(Map.of(
                QuotaEntity.clientId(Optional.of("test-client")),
                Map.of(QuotaKey.CONTROLLER_MUTATION_RATE, perSecond)));
    }

    private CreateTopicsResponse create(int version, CreatableTopic... topics) {
        var data = new CreateTopicsRequestData().setTimeoutMs(5000);
        for (CreatableTopic t : topics) {
            data.topics().add(t);
        }
        return Wire.call(create, new CreateTopicsRequest.Builder(data), version);
    }

    private static CreatableTopic topic(String name, int partitions) {
        return new CreatableTopic().setName(name).setNumPartitions(partitions).setReplicationFactor((short) 1);
    }

    private static short error(CreateTopicsResponse response, String topic) {
        return response.data().topics().find(topic).errorCode();
    }

    @Test
    void aStrictRequestIsServedWhileTokensLastThenItsTopicsAreRefusedWithTheTimeToRefill() {
        limit(1);
        // 11 tokens: 20 partitions are taken at once (a topic is never cut), leaving -9
        CreateTopicsResponse first = create(7, topic("a", 20));
        assertThat(error(first, "a")).isEqualTo(Errors.NONE.code());
        assertThat(first.throttleTimeMs()).isZero();

        CreateTopicsResponse second = create(7, topic("b", 1), topic("c", 1));
        assertThat(error(second, "b")).isEqualTo(Errors.THROTTLING_QUOTA_EXCEEDED.code());
        assertThat(error(second, "c")).isEqualTo(Errors.THROTTLING_QUOTA_EXCEEDED.code());
        assertThat(second.data().topics().find("b").errorMessage())
                .isEqualTo(Errors.THROTTLING_QUOTA_EXCEEDED.message());
        assertThat(second.throttleTimeMs()).isEqualTo(9000);
        assertThat(controlPlane.image().topic("b")).isEmpty();

        nowMs.addAndGet(9000);
        CreateTopicsResponse refilled = create(7, topic("b", 1));
        assertThat(error(refilled, "b")).isEqualTo(Errors.NONE.code());
        assertThat(refilled.throttleTimeMs()).isZero();
    }

    @Test
    void aPermissiveRequestIsAlwaysServedAndAnsweredWithItsThrottle() {
        limit(1);
        CreateTopicsResponse first = create(5, topic("a", 20));
        assertThat(error(first, "a")).isEqualTo(Errors.NONE.code());
        assertThat(first.throttleTimeMs()).isEqualTo(9000);

        CreateTopicsResponse second = create(5, topic("b", 1));
        assertThat(error(second, "b")).isEqualTo(Errors.NONE.code());
        assertThat(second.throttleTimeMs()).isEqualTo(10_000);
        assertThat(controlPlane.image().topic("b")).isPresent();
    }

    @Test
    void partitionsAddedAndDeletedCountAsTheyDoOnKafka() {
        create(7, topic("t", 1));
        limit(1);
        // growing 1 -> 12 takes 11 tokens: the bucket is empty, not below zero
        CreatePartitionsResponse grown = Wire.call(
                grow,
                new CreatePartitionsRequest.Builder(new CreatePartitionsRequestData()
                        .setTimeoutMs(5000)
                        .setTopics(new CreatePartitionsRequestData.CreatePartitionsTopicCollection(
                                java.util.List.of(new CreatePartitionsTopic()
                                                .setName("t")
                                                .setCount(12)
                                                .setAssignments(null))
                                        .iterator()))),
                3);
        assertThat(grown.data().results().getFirst().errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(grown.throttleTimeMs()).isZero();

        // deleting 12 partitions is accepted (the bucket is at zero), leaving -12
        DeleteTopicsResponse deleted = Wire.call(
                delete,
                new DeleteTopicsRequest.Builder(new DeleteTopicsRequestData()
                        .setTimeoutMs(5000)
                        .setTopics(java.util.List.of(new DeleteTopicState().setName("t")))),
                6);
        assertThat(deleted.data().responses().find("t").errorCode()).isEqualTo(Errors.NONE.code());

        CreateTopicsResponse refused = create(6, topic("u", 1));
        assertThat(error(refused, "u")).isEqualTo(Errors.THROTTLING_QUOTA_EXCEEDED.code());
        assertThat(refused.throttleTimeMs()).isEqualTo(12_000);
    }

    @Test
    void aClientUnderNoQuotaIsNeverThrottledNorCounted() {
        CreateTopicsResponse response = create(7, topic("a", 500));
        assertThat(error(response, "a")).isEqualTo(Errors.NONE.code());
        assertThat(response.throttleTimeMs()).isZero();
        assertThat(quota.trackedClients()).isZero();
    }

    @Test
    void validateOnlyCountsNothing() {
        limit(1);
        var data = new CreateTopicsRequestData().setTimeoutMs(5000).setValidateOnly(true);
        data.topics().add(topic("a", 50));
        CreateTopicsResponse validated = Wire.call(create, new CreateTopicsRequest.Builder(data), 7);
        assertThat(error(validated, "a")).isEqualTo(Errors.NONE.code());
        assertThat(error(create(7, topic("b", 5)), "b")).isEqualTo(Errors.NONE.code());
    }
}
