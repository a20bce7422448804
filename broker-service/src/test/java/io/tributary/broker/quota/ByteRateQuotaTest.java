package io.tributary.broker.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.cluster.ClusterQuotas;
import io.tributary.common.security.quota.QuotaEntity;
import io.tributary.common.security.quota.QuotaKey;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Sampled rates, Kafka's throttle time, and which clients are measured, on a manual clock. */
class ByteRateQuotaTest {

    private final AtomicLong nowMs = new AtomicLong(1_000_000);
    private final InstantSource clock = () -> Instant.ofEpochMilli(nowMs.get());

    private ByteRateQuota quota(Map<QuotaEntity, Map<QuotaKey, Double>> quotas, int maxClients) {
        ClusterQuotas cluster = new ClusterQuotas(quotas);
        return new ByteRateQuota(
                QuotaKey.PRODUCER_BYTE_RATE,
                new QuotaConfig(11, Duration.ofSeconds(1), maxClients),
                () -> cluster,
                clock,
                ByteRateQuota.Listener.NONE);
    }

    private static Map<QuotaEntity, Map<QuotaKey, Double>> userQuota(String user, double bytesPerSecond) {
        return Map.of(QuotaEntity.user(Optional.of(user)), Map.of(QuotaKey.PRODUCER_BYTE_RATE, bytesPerSecond));
    }

    @Test
    void aFirstBurstIsMeasuredOverTenWindowsAndThrottledAsKafkaComputesIt() {
        RateWindows rate = new RateWindows(11, 1000, 0);
        rate.record(1000, 0);

        assertThat(rate.spanMs(0)).isEqualTo(10_000);
        assertThat(rate.ratePerSecond(0)).isEqualTo(100.0);
        // (100 - 50) / 50 x 10 s
        assertThat(ByteRateQuota.throttleMs(100, 50, 10_000)).isEqualTo(10_000);
        assertThat(ByteRateQuota.throttleMs(50, 50, 10_000)).isZero();
    }

    @Test
    void windowsRollAndExpireSoAnIdleClientsRateFallsToZero() {
        RateWindows rate = new RateWindows(11, 1000, 0);
        for (int s = 0; s < 20; s++) {
            rate.record(100, s * 1000L);
        }
        // 11 live windows of 100 bytes over 10 s (the oldest started at 9 s): 110 bytes/s
        assertThat(rate.spanMs(19_000)).isEqualTo(10_000);
        assertThat(rate.ratePerSecond(19_000)).isEqualTo(110.0);
        assertThat(rate.ratePerSecond(19_000 + 11_000)).isZero();
    }

    @Test
    void aClientOverItsQuotaIsThrottledAndOneWithinItIsNot() {
        ByteRateQuota quota = quota(userQuota("alice", 100), 10);

        assertThat(quota.recordAndGetThrottleMs("alice", "app", 900)).isZero();
        long throttle = quota.recordAndGetThrottleMs("alice", "app", 1100);

        // 2000 bytes over 10 s is 200 bytes/s: (200 - 100) / 100 x 10 s
        assertThat(throttle).isEqualTo(10_000);
    }

    @Test
    void aUserQuotaIsSharedByAllTheUsersClientIds() {
        ByteRateQuota quota = quota(userQuota("alice", 100), 10);

        assertThat(quota.recordAndGetThrottleMs("alice", "one", 1000)).isZero();
        assertThat(quota.recordAndGetThrottleMs("alice", "two", 1000)).isPositive();
        assertThat(quota.trackedClients()).isEqualTo(1);
    }

    @Test
    void aClientWithoutAQuotaIsNeitherMeasuredNorThrottled() {
        ByteRateQuota quota = quota(userQuota("alice", 1), 10);

        assertThat(quota.recordAndGetThrottleMs("bob", "app", 1_000_000)).isZero();
        assertThat(quota.trackedClients()).isZero();
    }

    @Test
    void unrecordedBytesNoLongerCount() {
        ByteRateQuota quota = quota(userQuota("alice", 100), 10);
        assertThat(quota.recordAndGetThrottleMs("alice", "app", 5000)).isPositive();

        quota.unrecord("alice", "app", 5000);

        assertThat(quota.recordAndGetThrottleMs("alice", "app", 100)).isZero();
    }

    @Test
    void pastTheBoundTheClientIdleLongestIsForgotten() {
        Map<QuotaEntity, Map<QuotaKey, Double>> perUser =
                Map.of(QuotaEntity.user(Optional.empty()), Map.of(QuotaKey.PRODUCER_BYTE_RATE, 1e9));
        ByteRateQuota quota = quota(perUser, 2);

        quota.recordAndGetThrottleMs("a", "", 1);
        nowMs.addAndGet(10);
        quota.recordAndGetThrottleMs("b", "", 1);
        nowMs.addAndGet(10);
        quota.recordAndGetThrottleMs("a", "", 1);
        nowMs.addAndGet(10);
        quota.recordAndGetThrottleMs("c", "", 1);

        assertThat(quota.trackedClients()).isEqualTo(2);
        // "b" was forgotten, so a new burst from it starts from nothing
        assertThat(quota.recordAndGetThrottleMs("b", "", 1)).isZero();
    }
}
