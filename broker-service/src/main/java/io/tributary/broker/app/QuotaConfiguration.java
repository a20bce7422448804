package io.tributary.broker.app;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.quota.ByteRateQuota;
import io.tributary.broker.quota.ConnectionRateQuota;
import io.tributary.broker.quota.ControllerMutationQuota;
import io.tributary.broker.quota.RequestTimeQuota;
import io.tributary.broker.quota.RequestTimeThrottle;
import io.tributary.common.protocol.RequestWrapper;
import io.tributary.common.security.quota.QuotaKey;
import java.time.InstantSource;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.beans.factory.annotation.Qualifier;
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
 *
 * <p>And one {@link ControllerMutationQuota} for {@code controller_mutation_rate}, which {@link
 * AdminApiConfiguration} gives the CreateTopics, CreatePartitions and DeleteTopics handlers; its
 * meters are tagged {@code quota=controller_mutation_rate}: {@code
 * tributary.broker.quota.throttle.time} (the throttle each counted topic earned, 0 when none), {@code
 * tributary.broker.quota.partition.mutations} (partitions counted, tag {@code outcome=accepted|refused})
 * and {@code tributary.broker.quota.clients} (token buckets kept).
 *
 * <p>And a {@link RequestTimeQuota} for {@code request_percentage}, put around every handler of
 * every Kafka listener ({@link RequestWrapper}, outside the authorizer); meters tagged {@code
 * quota=request_percentage}: {@code tributary.broker.quota.throttle.time}, {@code
 * tributary.broker.quota.request.time.rate} (a client's measured percent of a thread at each measured
 * request) and {@code tributary.broker.quota.clients}.
 *
 * <p>And a {@link ConnectionRateQuota} for {@code connection_creation_rate}, which every Kafka
 * listener asks about each connection it accepts; meters tagged {@code
 * quota=connection_creation_rate}: {@code tributary.broker.quota.throttle.time} (0 for a connection
 * taken, the hold for one refused) and {@code tributary.broker.quota.clients} (IP rates kept); the
 * listener counts refusals in {@code tributary.protocol.connections.throttled}.
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
            throttle.put(key, throttleTime(registry, key.wireName()));
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

    @Bean
    RequestTimeQuota requestTimeQuota(QuotaProperties properties, MetadataView metadata, MeterRegistry registry) {
        String tag = QuotaKey.REQUEST_PERCENTAGE.wireName();
        DistributionSummary throttle = throttleTime(registry, tag);
        DistributionSummary rate = DistributionSummary.builder("tributary.broker.quota.request.time.rate")
                .description("A client's measured request time, in percent of one thread, at each measured request")
                .baseUnit("percent")
                .tag("quota", tag)
                .register(registry);
        ByteRateQuota measured = new ByteRateQuota(
                QuotaKey.REQUEST_PERCENTAGE,
                properties.config(),
                () -> metadata.image().clientQuotas(),
                InstantSource.system(),
                (key, percent, throttleMs) -> {
                    throttle.record(Math.min(
                                    throttleMs, properties.config().windowSize().toMillis())
                            / 1000.0);
                    rate.record(percent);
                });
        clients(registry, tag, measured::trackedClients);
        return new RequestTimeQuota(measured, properties.config().windowSize());
    }

    /** {@code connection_creation_rate}, asked by every Kafka listener of the broker about each new connection. */
    @Bean
    ConnectionRateQuota connectionRateQuota(QuotaProperties properties, MetadataView metadata, MeterRegistry registry) {
        String tag = QuotaKey.CONNECTION_CREATION_RATE.wireName();
        DistributionSummary throttle = throttleTime(registry, tag);
        ConnectionRateQuota quota = new ConnectionRateQuota(
                properties.config(),
                () -> metadata.image().clientQuotas(),
                InstantSource.system(),
                (rate, throttleMs) -> throttle.record(throttleMs / 1000.0));
        clients(registry, tag, quota::trackedClients);
        return quota;
    }

    /** Every Kafka listener's handlers behind {@code request_percentage} ({@link RequestTimeThrottle}). */
    @Bean
    RequestWrapper requestTimeThrottles(
            RequestTimeQuota requestTimeQuota, @Qualifier("fetchQuota") ByteRateQuota fetchQuota) {
        return handlers -> RequestTimeThrottle.wrap(handlers, requestTimeQuota, fetchQuota);
    }

    @Bean
    ControllerMutationQuota mutationQuota(QuotaProperties properties, MetadataView metadata, MeterRegistry registry) {
        String tag = QuotaKey.CONTROLLER_MUTATION_RATE.wireName();
        DistributionSummary throttle = throttleTime(registry, tag);
        Counter accepted = mutations(registry, "accepted");
        Counter refused = mutations(registry, "refused");
        ControllerMutationQuota quota = new ControllerMutationQuota(
                properties.config(),
                () -> metadata.image().clientQuotas(),
                InstantSource.system(),
                (partitions, wasRefused, throttleMs) -> {
                    throttle.record(throttleMs / 1000.0);
                    (wasRefused ? refused : accepted).increment(partitions);
                });
        clients(registry, tag, quota::trackedClients);
        return quota;
    }

    private static void clients(MeterRegistry registry, String quota, Supplier<Number> tracked) {
        Gauge.builder("tributary.broker.quota.clients", tracked)
                .description("(user, client id) rates kept for a client quota")
                .tag("quota", quota)
                .register(registry);
    }

    private static DistributionSummary throttleTime(MeterRegistry registry, String quota) {
        return DistributionSummary.builder("tributary.broker.quota.throttle.time")
                .description("Throttle time each request measured against a client quota earned")
                .baseUnit("seconds")
                .tag("quota", quota)
                .register(registry);
    }

    private static Counter mutations(MeterRegistry registry, String outcome) {
        return Counter.builder("tributary.broker.quota.partition.mutations")
                .description("Partitions created, added or deleted under a controller_mutation_rate quota")
                .tag("quota", QuotaKey.CONTROLLER_MUTATION_RATE.wireName())
                .tag("outcome", outcome)
                .register(registry);
    }

    private static ByteRateQuota quota(
            QuotaKey key,
            QuotaProperties properties,
            MetadataView metadata,
            ByteRateQuota.Listener listener,
            MeterRegistry registry) {
        ByteRateQuota quota = new ByteRateQuota(
                key, properties.config(), () -> metadata.image().clientQuotas(), InstantSource.system(), listener);
        clients(registry, key.wireName(), quota::trackedClients);
        return quota;
    }
}
