package io.tributary.gateway.app;

import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Where the gateway finds the cluster, and how long it waits for it ({@code tributary.gateway.*}).
 *
 * @param bootstrapServers Kafka-protocol addresses ({@code host:port}) of Tributary brokers or of
 *     any Kafka cluster
 * @param clusterTimeout how long one call to the cluster (metadata, admin, a produce's delivery) may
 *     take before the answer is 503 {@code cluster-unavailable}
 */
@Validated
@ConfigurationProperties("tributary.gateway")
public record GatewayProperties(
        @DefaultValue("127.0.0.1:9092") @NotEmpty List<String> bootstrapServers,
        @DefaultValue("15s") @NotNull Duration clusterTimeout) {

    public GatewayProperties {
        bootstrapServers = List.copyOf(bootstrapServers);
        if (clusterTimeout != null && (clusterTimeout.isNegative() || clusterTimeout.isZero())) {
            throw new IllegalArgumentException("tributary.gateway.cluster-timeout must be positive");
        }
    }
}
