package io.tributary.gateway.groups;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Bounds and group settings of consumer-group SSE streams ({@code tributary.gateway.groups.*}).
 * Buffers, heartbeats, {@code retry:} and the slow-client rule are the SSE streams' ({@code
 * tributary.gateway.sse.*}).
 *
 * @param maxStreams group streams open at once on this gateway; each holds one group consumer (one
 *     member of its group, with the client's background thread). One more is 503 {@code
 *     too-many-group-streams} with {@code Retry-After}
 * @param sessionTimeout when set (absent by default), the gateway sets the group's {@code consumer.session.timeout.ms}
 *     (KIP-848 keeps it on the group coordinator; clients cannot choose it) before a stream joins:
 *     how long a member may be silent (a gateway that crashed) or, with {@code member=}, away (a
 *     client reconnecting) before its partitions go to others. Unset: the cluster's default
 *     ({@code group.consumer.session.timeout.ms}, 45 s in Apache Kafka)
 * @param heartbeatInterval when set, the group's {@code consumer.heartbeat.interval.ms}: how often
 *     members heartbeat, which bounds how fast partitions move in a rebalance. Unset: the
 *     cluster's default (5 s in Apache Kafka)
 * @param closeTimeout the longest a stream's end waits for its last commit and for leaving the group
 * @param commitTimeout the longest a manual commit ({@code POST .../commits}) waits for the stream's
 *     consumer to commit it (including one hop to the replica holding the stream)
 * @param advertisedUrl this replica's base URL as the other gateway replicas reach it (absent by
 *     default). Set on every replica, a manual commit that reaches a replica not holding the
 *     member's stream is forwarded (once) to the one that does: each group consumer's {@code
 *     client.id} carries it, and the group coordinator reports it in the group's description
 */
@Validated
@ConfigurationProperties("tributary.gateway.groups")
public record GroupsProperties(
        @DefaultValue("200") @Min(1) @Max(10_000) int maxStreams,
        Duration sessionTimeout,
        Duration heartbeatInterval,
        @DefaultValue("5s") @NotNull Duration closeTimeout,
        @DefaultValue("10s") @NotNull Duration commitTimeout,
        URI advertisedUrl) {

    public GroupsProperties {
        positive("session-timeout", sessionTimeout);
        positive("heartbeat-interval", heartbeatInterval);
        positive("close-timeout", closeTimeout);
        positive("commit-timeout", commitTimeout);
        if (advertisedUrl != null
                && (!List.of("http", "https").contains(advertisedUrl.getScheme()) || advertisedUrl.getHost() == null)) {
            throw new IllegalArgumentException(
                    "tributary.gateway.groups.advertised-url must be an http(s) URL such as http://gateway-1.gateway:8080");
        }
    }

    /** This replica's URL as the other replicas reach it, when configured. */
    public Optional<URI> replicaUrl() {
        return Optional.ofNullable(advertisedUrl);
    }

    /** The session timeout to set on each group, when configured. */
    public Optional<Duration> groupSessionTimeout() {
        return Optional.ofNullable(sessionTimeout);
    }

    /** The heartbeat interval to set on each group, when configured. */
    public Optional<Duration> groupHeartbeatInterval() {
        return Optional.ofNullable(heartbeatInterval);
    }

    private static void positive(String key, Duration d) {
        if (d != null && (d.toMillis() <= 0 || d.toMillis() > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException(
                    "tributary.gateway.groups." + key + " must be positive and at most " + Integer.MAX_VALUE + " ms");
        }
    }
}
