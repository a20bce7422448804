package io.tributary.broker.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.cluster.ClusterQuotas;
import io.tributary.common.security.quota.QuotaEntity;
import io.tributary.common.security.quota.QuotaEntityType;
import io.tributary.common.security.quota.QuotaKey;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@code connection_creation_rate} per IP on a manual clock: Kafka's rate, throttle and bound. */
class ConnectionRateQuotaTest {

    private final AtomicLong nowMs = new AtomicLong(2_000_000);
    private final InstantSource clock = () -> Instant.ofEpochMilli(nowMs.get());

    private static QuotaEntity ip(Optional<String> ip) {
        return new QuotaEntity(Map.of(QuotaEntityType.IP, ip));
    }

    private ConnectionRateQuota quota(Map<QuotaEntity, Map<QuotaKey, Double>> quotas) {
        ClusterQuotas cluster = new ClusterQuotas(quotas);
        return new ConnectionRateQuota(
                new QuotaConfig(11, Duration.ofSeconds(1), 100),
                () -> cluster,
                clock,
                ConnectionRateQuota.Listener.NONE);
    }

    private static long burst(ConnectionRateQuota quota, String address, int count) throws Exception {
        InetAddress from = InetAddress.getByName(address);
        long refused = 0;
        for (int i = 0; i < count; i++) {
            if (quota.throttleMs(from) > 0) {
                refused++;
            }
        }
        return refused;
    }

    @Test
    void aFirstBurstIsMeasuredOverTenWindowsAndWhatGoesOverIsRefusedUncounted() throws Exception {
        ConnectionRateQuota quota =
                quota(Map.of(ip(Optional.of("10.0.0.1")), Map.of(QuotaKey.CONNECTION_CREATION_RATE, 2.0)));
        InetAddress from = InetAddress.getByName("10.0.0.1");

        // 20 connections over the first burst's 10 s: 2/s, the quota
        assertThat(burst(quota, "10.0.0.1", 20)).isZero();
        // the 21st makes 2.1/s: (2.1 - 2) / 2 x 10 s = 500 ms, and it is not counted
        assertThat(quota.throttleMs(from)).isEqualTo(500);
        assertThat(quota.throttleMs(from)).isEqualTo(500);
        // at most one window
        nowMs.addAndGet(1);
        ConnectionRateQuota tight =
                quota(Map.of(ip(Optional.of("10.0.0.1")), Map.of(QuotaKey.CONNECTION_CREATION_RATE, 0.1)));
        assertThat(tight.throttleMs(from)).isZero();
        assertThat(tight.throttleMs(from)).isEqualTo(1000);
    }

    @Test
    void anIpWithoutItsOwnQuotaHasTheDefaultIpsEachIpItsOwnRate() throws Exception {
        ConnectionRateQuota quota = quota(Map.of(
                ip(Optional.empty()), Map.of(QuotaKey.CONNECTION_CREATION_RATE, 1.0),
                ip(Optional.of("10.0.0.9")), Map.of(QuotaKey.CONNECTION_CREATION_RATE, 100.0)));

        assertThat(burst(quota, "10.0.0.1", 15)).isEqualTo(5);
        assertThat(burst(quota, "10.0.0.2", 15)).isEqualTo(5);
        assertThat(burst(quota, "10.0.0.9", 15)).isZero();
        assertThat(quota.trackedClients()).isEqualTo(3);
    }

    @Test
    void anIpUnderNoQuotaIsNeitherMeasuredNorRefused() throws Exception {
        ConnectionRateQuota quota =
                quota(Map.of(QuotaEntity.user(Optional.of("alice")), Map.of(QuotaKey.PRODUCER_BYTE_RATE, 1.0)));

        assertThat(burst(quota, "10.0.0.1", 1000)).isZero();
        assertThat(quota.trackedClients()).isZero();
    }

    @Test
    void theRateComesBackAsWindowsExpire() throws Exception {
        ConnectionRateQuota quota =
                quota(Map.of(ip(Optional.of("10.0.0.1")), Map.of(QuotaKey.CONNECTION_CREATION_RATE, 1.0)));
        assertThat(burst(quota, "10.0.0.1", 12)).isEqualTo(2);
        nowMs.addAndGet(12_000);
        assertThat(burst(quota, "10.0.0.1", 10)).isZero();
    }
}
