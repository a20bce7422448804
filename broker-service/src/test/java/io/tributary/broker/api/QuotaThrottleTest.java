package io.tributary.broker.api;

import static io.tributary.broker.api.DataPathFixture.ORDERS;
import static io.tributary.broker.api.DataPathFixture.fetchRequest;
import static io.tributary.broker.api.DataPathFixture.produceRequest;
import static io.tributary.broker.api.DataPathFixture.records;
import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.api.DataPathFixture.Fetch;
import io.tributary.broker.cluster.ClusterQuotas;
import io.tributary.broker.quota.ByteRateQuota;
import io.tributary.broker.quota.FetchThrottle;
import io.tributary.broker.quota.ProduceThrottle;
import io.tributary.broker.quota.QuotaConfig;
import io.tributary.common.security.quota.QuotaEntity;
import io.tributary.common.security.quota.QuotaKey;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Produce and Fetch under client quotas, through the real handlers: the throttle in {@code
 * throttle_time_ms}, a throttled fetch answered empty, replica fetches and unlimited clients
 * untouched. The fixture's caller is {@code User:ANONYMOUS} with client id {@code test}.
 */
class QuotaThrottleTest {

    @TempDir
    Path dir;

    private DataPathFixture broker;

    @BeforeEach
    void start() {
        broker = new DataPathFixture(dir);
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private static ByteRateQuota quota(QuotaKey key, QuotaEntity entity, double bytesPerSecond) {
        ClusterQuotas quotas = new ClusterQuotas(Map.of(entity, Map.of(key, bytesPerSecond)));
        return new ByteRateQuota(
                key, QuotaConfig.DEFAULTS, () -> quotas, InstantSource.system(), ByteRateQuota.Listener.NONE);
    }

    private ProduceResponse produce(ProduceThrottle handler) {
        return broker.call(
                handler, produceRequest(9, (short) 1, 1000, "orders", ORDERS, 0, records(50)), ProduceResponse.class);
    }

    @Test
    void aProducerOverItsQuotaIsServedAndToldHowLongToWait() {
        var handler = new ProduceThrottle(
                broker.produce, quota(QuotaKey.PRODUCER_BYTE_RATE, QuotaEntity.user(Optional.of("ANONYMOUS")), 1));

        ProduceResponse response = produce(handler);

        assertThat(response.throttleTimeMs()).isPositive();
        assertThat(response.data()
                        .responses()
                        .iterator()
                        .next()
                        .partitionResponses()
                        .getFirst()
                        .errorCode())
                .isEqualTo(Errors.NONE.code());
        assertThat(broker.partition("orders", 0).log().logEndOffset()).isEqualTo(50);
    }

    @Test
    void aProducerWithinItsQuotaOrUnderAnotherClientsIsNotThrottled() {
        var generous = new ProduceThrottle(
                broker.produce, quota(QuotaKey.PRODUCER_BYTE_RATE, QuotaEntity.clientId(Optional.of("test")), 1e9));
        var others = new ProduceThrottle(
                broker.produce, quota(QuotaKey.PRODUCER_BYTE_RATE, QuotaEntity.clientId(Optional.of("other")), 1));

        assertThat(produce(generous).throttleTimeMs()).isZero();
        assertThat(produce(others).throttleTimeMs()).isZero();
    }

    private FetchThrottle fiftyRecordsAndAOneBytePerSecondFetchQuota() {
        broker.call(
                broker.produce,
                produceRequest(9, (short) 1, 1000, "orders", ORDERS, 0, records(50)),
                ProduceResponse.class);
        return new FetchThrottle(
                broker.fetch, quota(QuotaKey.CONSUMER_BYTE_RATE, QuotaEntity.clientId(Optional.empty()), 1));
    }

    @Test
    void aThrottledConsumerFetchIsAnsweredEmptyWithItsThrottle() {
        var handler = fiftyRecordsAndAOneBytePerSecondFetchQuota();

        FetchResponse first = broker.call(
                handler,
                fetchRequest(12, -1, 0, 0, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 0)),
                FetchResponse.class);

        assertThat(first.throttleTimeMs()).isPositive();
        assertThat(first.error()).isEqualTo(Errors.NONE);
        assertThat(first.data().responses()).isEmpty();
    }

    @Test
    void replicaFetchesAreNeverThrottled() {
        var handler = fiftyRecordsAndAOneBytePerSecondFetchQuota();

        FetchResponse replica = broker.call(
                handler,
                fetchRequest(12, 1, 0, 0, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 0)),
                FetchResponse.class);

        assertThat(replica.throttleTimeMs()).isZero();
    }
}
