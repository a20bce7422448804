package io.tributary.broker.app;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.quota.ByteRateQuota;
import io.tributary.common.security.quota.QuotaKey;
import java.time.InstantSource;
import java.util.EnumMap;
import java.util.Map;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Client quota enforcement: one {@link ByteRateQuota} for {@code producer_byte_rate} and one for
 * {@code consumer_byte_rate}, reading the quotas from this broker's cluster image; {@link
 * ReplicaConfiguration} puts them around the Produce and Fetch handlers. Meters, tagged {@code
 * quota=producer_byte_rate|consumer_byte_rate}:
 *
 * <ul>
 *   <li>{@code tributary.broker.quota.throttle.time}: the throttle time (s) each measured request
 *       earned, 0 within quota (its max is Kafka's {@code produce-throttle-time-max} across clients),
 *       distribution summary
 *   <li>{@code tributary.broker.quota.byte.rate}: the measured client byte rate (bytes/s) at each
 *       measured request, distribution summary
 *   <li>{@code tributary.broker.quota.clients}: (user, client id) rates kept, gauge
 * </ul>
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(QuotaProperties.class)
class QuotaConfiguration {

    @Bean
    ByteRateQuota produceQuota(
            QuotaProperties properties,
            MetadataView metadata,
            ByteRateQuota.Listener listener,
            MeterRegistry registry) {
        return quota(QuotaKey.PRODUCER_BYTE_RATE, properties, metadata, listener, registry);
    }

    @Bean
    ByteRateQuota fetchQuota(
            QuotaProperties properties,
            MetadataView metadata,
            ByteRateQuota.Listener listener,
            MeterRegistry registry) {
        return quota(QuotaKey.CONSUMER_BYTE_RATE, properties, metadata, listener, registry);
    }

    @Bean
    ByteRateQuota.Listener quotaListener(MeterRegistry registry) {
        Map<QuotaKey, DistributionSummary> throttle = new EnumMap<>(QuotaKey.class);
        Map<QuotaKey, DistributionSummary> rate = new EnumMap<>(QuotaKey.class);
        for (QuotaKey key : new QuotaKey[] {QuotaKey.PRODUCER_BYTE_RATE, QuotaKey.CONSUMER_BYTE_RATE}) {
            throttle.put(
                    key,
                    DistributionSummary.builder("tributary.broker.quota.throttle.time")
                            .description("Throttle time each request measured against a client quota earned")
                            .baseUnit("seconds")
                            .tag("quota", key.wireName())
                            .register(registry));
            rate.put(
                    key,
                    DistributionSummary.builder("tributary.broker.quota.byte.rate")
                            .description("A client's measured byte rate at each request measured against its quota")
                            .baseUnit("bytes")
                            .tag("quota", key.wireName())
                            .register(registry));
        }
        return (key, ratePerSecond, throttleMs) -> {
            throttle.get(key).record(throttleMs / 1000.0);
            rate.get(key).record(ratePerSecond);
        };
    }

    private static ByteRateQuota quota(
            QuotaKey key,
            QuotaProperties properties,
            MetadataView metadata,
            ByteRateQuota.Listener listener,
            MeterRegistry registry) {
        ByteRateQuota quota = new ByteRateQuota(
                key, properties.config(), () -> metadata.image().clientQuotas(), InstantSource.system(), listener);
        Gauge.builder("tributary.broker.quota.clients", quota, ByteRateQuota::trackedClients)
                .description("(user, client id) rates kept for a client quota")
                .tag("quota", key.wireName())
                .register(registry);
        return quota;
    }
}
