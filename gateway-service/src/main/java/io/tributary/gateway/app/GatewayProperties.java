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
 * @param writeTimeout the longest one write to a client may block (its socket buffer full because
 *     it reads nothing), after which the connection is dropped; an SSE stream so dropped counts as
 *     closed for {@code slow_client}. It is the HTTP connector's connection timeout, so it also
 *     bounds how long a new connection may take to send its request line and headers
 *     ({@code server.tomcat.connection-timeout}, when set, wins)
 * @param bodyReadTimeout the longest a read of a request body may wait for the client's next bytes
 */
@Validated
@ConfigurationProperties("tributary.gateway")
public record GatewayProperties(
        @DefaultValue("127.0.0.1:9092") @NotEmpty List<String> bootstrapServers,
        @DefaultValue("15s") @NotNull Duration clusterTimeout,
        @DefaultValue("10s") @NotNull Duration writeTimeout,
        @DefaultValue("60s") @NotNull Duration bodyReadTimeout) {

    public GatewayProperties {
        bootstrapServers = List.copyOf(bootstrapServers);
        if (clusterTimeout != null && (clusterTimeout.isNegative() || clusterTimeout.isZero())) {
            throw new IllegalArgumentException("tributary.gateway.cluster-timeout must be positive");
        }
        positive("write-timeout", writeTimeout);
        positive("body-read-timeout", bodyReadTimeout);
    }

    private static void positive(String key, Duration d) {
        if (d != null && (d.toMillis() <= 0 || d.toMillis() > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException(
                    "tributary.gateway." + key + " must be positive and at most " + Integer.MAX_VALUE + " ms");
        }
    }
}
