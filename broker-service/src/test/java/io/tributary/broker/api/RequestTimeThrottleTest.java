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
import io.tributary.broker.quota.QuotaConfig;
import io.tributary.broker.quota.RequestTimeQuota;
import io.tributary.broker.quota.RequestTimeThrottle;
import io.tributary.common.protocol.RequestWaits;
import io.tributary.common.security.quota.QuotaEntity;
import io.tributary.common.security.quota.QuotaKey;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code request_percentage}: the arithmetic on a manual clock (percent of a thread, Kafka's
 * throttle bounded to one window), then the real Produce and Fetch handlers behind {@link
 * RequestTimeThrottle}: a client over its quota served and throttled, a throttled fetch answered
 * empty, replica fetches and other clients not measured, and a long poll's wait not counted. The
 * fixture's caller is {@code User:ANONYMOUS} with client id {@code test}.
 */
class RequestTimeThrottleTest {

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

    private static ByteRateQuota rate(QuotaKey key, QuotaEntity entity, double bound, InstantSource clock) {
        ClusterQuotas quotas = new ClusterQuotas(Map.of(entity, Map.of(key, bound)));
        return new ByteRateQuota(key, QuotaConfig.DEFAULTS, () -> quotas, clock, ByteRateQuota.Listener.NONE);
    }

    private static RequestTimeQuota percent(ByteRateQuota rate) {
        return new RequestTimeQuota(rate, QuotaConfig.DEFAULTS.windowSize());
    }

    private static final QuotaEntity ANONYMOUS = QuotaEntity.user(Optional.of("ANONYMOUS"));

    private final ByteRateQuota noConsumerQuota =
            rate(QuotaKey.CONSUMER_BYTE_RATE, QuotaEntity.clientId(Optional.of("nobody")), 1, InstantSource.system());

    @Test
    void requestTimeIsAPercentOfOneThreadAndItsThrottleIsAtMostOneWindow() {
        AtomicLong nowMs = new AtomicLong(1_000_000);
        InstantSource clock = () -> Instant.ofEpochMilli(nowMs.get());
        RequestTimeQuota quota = percent(rate(QuotaKey.REQUEST_PERCENTAGE, ANONYMOUS, 20, clock));

        // 1 s of work = 100 percent-seconds, over the first burst's 10 s: 10 %, within 20 %
        assertThat(quota.recordAndGetThrottleMs("ANONYMOUS", "a", 1_000_000_000L))
                .isZero();
        // 1.5 s more: 25 % over 10 s; Kafka's (25 - 20) / 20 x 10 s = 2.5 s, bounded to one window
        assertThat(quota.recordAndGetThrottleMs("ANONYMOUS", "a", 1_500_000_000L))
                .isEqualTo(1000);

        RequestTimeQuota loose = percent(rate(QuotaKey.REQUEST_PERCENTAGE, ANONYMOUS, 24, clock));
        // 2.5 s over 10 s = 25 % against 24 %: (25 - 24) / 24 x 10 s = 417 ms
        assertThat(loose.recordAndGetThrottleMs("ANONYMOUS", "a", 2_500_000_000L))
                .isEqualTo(417);
    }

    @Test
    void waitsAreNotWorkAndMeasuresNest() {
        RequestWaits.Measured<String> outer = RequestWaits.measure(() -> {
            RequestWaits.Measured<String> inner = RequestWaits.measure(() -> {
                RequestWaits.waited(5_000_000_000L);
                return "inner";
            });
            assertThat(inner.waitedNanos()).isEqualTo(5_000_000_000L);
            assertThat(inner.workedNanos()).isZero();
            return inner.result();
        });
        assertThat(outer.result()).isEqualTo("inner");
        assertThat(outer.waitedNanos()).isEqualTo(5_000_000_000L);
        RequestWaits.waited(1);
        assertThat(RequestWaits.measure(() -> 1).waitedNanos()).isZero();
    }

    @Test
    void aClientOverItsRequestPercentageIsServedAndThrottledForAtMostOneWindow() {
        var handler = new RequestTimeThrottle(
                broker.produce,
                percent(rate(QuotaKey.REQUEST_PERCENTAGE, ANONYMOUS, 1e-9, InstantSource.system())),
                noConsumerQuota);

        ProduceResponse response = broker.call(
                handler, produceRequest(9, (short) 1, 1000, "orders", ORDERS, 0, records(50)), ProduceResponse.class);

        assertThat(response.throttleTimeMs()).isBetween(1, 1000);
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
    void aFetchThrottledForItsRequestTimeIsAnsweredEmpty() {
        broker.call(
                broker.produce,
                produceRequest(9, (short) 1, 1000, "orders", ORDERS, 0, records(50)),
                ProduceResponse.class);
        ByteRateQuota consumerQuota =
                rate(QuotaKey.CONSUMER_BYTE_RATE, QuotaEntity.clientId(Optional.empty()), 1e12, InstantSource.system());
        var handler = new RequestTimeThrottle(
                new FetchThrottle(broker.fetch, consumerQuota),
                percent(rate(QuotaKey.REQUEST_PERCENTAGE, ANONYMOUS, 1e-9, InstantSource.system())),
                consumerQuota);

        FetchResponse response = broker.call(
                handler,
                fetchRequest(12, -1, 0, 0, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 0)),
                FetchResponse.class);

        assertThat(response.throttleTimeMs()).isPositive();
        assertThat(response.error()).isEqualTo(Errors.NONE);
        assertThat(response.data().responses()).isEmpty();
    }

    @Test
    void replicaFetchesAndClientsUnderNoQuotaAreNotMeasured() {
        ByteRateQuota tiny = rate(QuotaKey.REQUEST_PERCENTAGE, ANONYMOUS, 1e-9, InstantSource.system());
        var handler = new RequestTimeThrottle(broker.fetch, percent(tiny), noConsumerQuota);
        FetchResponse replica = broker.call(
                handler,
                fetchRequest(12, 1, 0, 0, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 0)),
                FetchResponse.class);
        assertThat(replica.throttleTimeMs()).isZero();
        assertThat(tiny.trackedClients()).isZero();

        ByteRateQuota others = rate(
                QuotaKey.REQUEST_PERCENTAGE, QuotaEntity.clientId(Optional.of("other")), 1e-9, InstantSource.system());
        var forOthers = new RequestTimeThrottle(broker.produce, percent(others), noConsumerQuota);
        ProduceResponse produced = broker.call(
                forOthers, produceRequest(9, (short) 1, 1000, "orders", ORDERS, 0, records(5)), ProduceResponse.class);
        assertThat(produced.throttleTimeMs()).isZero();
        assertThat(others.trackedClients()).isZero();
    }

    @Test
    void aLongPollsWaitIsNotCountedAsWork() {
        // 2 % of a thread over the first burst's 10 s is 200 ms of work; the poll waits 1 s
        ByteRateQuota twoPercent = rate(QuotaKey.REQUEST_PERCENTAGE, ANONYMOUS, 2, InstantSource.system());
        var handler = new RequestTimeThrottle(broker.fetch, percent(twoPercent), noConsumerQuota);

        long started = System.nanoTime();
        FetchResponse response = broker.call(
                handler,
                fetchRequest(12, -1, 1000, 1, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 0)),
                FetchResponse.class);

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(900));
        assertThat(response.throttleTimeMs()).isZero();
        assertThat(twoPercent.trackedClients()).isEqualTo(1);
    }
}
