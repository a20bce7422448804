package io.tributary.gateway.app;

import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
 * @param clientProperties further kafka-clients settings of every client the gateway makes (admin,
 *     producers, consumers), for those the gateway does not set itself: how it logs in to the
 *     brokers, e.g. {@code security.protocol=SASL_PLAINTEXT}, {@code sasl.mechanism=SCRAM-SHA-512}
 *     and {@code sasl.jaas.config} when the brokers' internal listener requires SASL (the cluster
 *     secret is set); where the gateway sets a key itself (bootstrap servers, client id, timeouts,
 *     serializers...), its own value wins
 */
@Validated
@ConfigurationProperties("tributary.gateway")
public record GatewayProperties(
        @DefaultValue("127.0.0.1:9092") @NotEmpty List<String> bootstrapServers,
        @DefaultValue("15s") @NotNull Duration clusterTimeout,
        @DefaultValue("10s") @NotNull Duration writeTimeout,
        @DefaultValue("60s") @NotNull Duration bodyReadTimeout,
        Map<String, String> clientProperties) {

    public GatewayProperties {
        bootstrapServers = List.copyOf(bootstrapServers);
        clientProperties = clientProperties == null ? Map.of() : Map.copyOf(clientProperties);
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
