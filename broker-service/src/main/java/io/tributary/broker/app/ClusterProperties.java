package io.tributary.broker.app;

import io.tributary.broker.cluster.CoordinatorGroupsClient;
import io.tributary.broker.cluster.GroupCoordinatorLocator;
import io.tributary.broker.cluster.HttpControlPlane;
import io.tributary.broker.cluster.MetadataFollower;
import io.tributary.common.security.internal.BrokerKey;
import io.tributary.common.security.internal.ClusterSecret;
import io.tributary.common.security.internal.InternalLogin;
import io.tributary.common.security.tls.TlsSettings;
import io.tributary.common.security.tls.TrustStores;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * How the broker takes part in the cluster ({@code tributary.broker.cluster.*}): its heartbeats,
 * the metadata long poll, and the bounds of its control-plane calls to the coordinators (whose
 * addresses are {@code tributary.broker.coordinators}).
 *
 * @param heartbeatInterval the pause between heartbeats (the coordinators expect one every second)
 * @param sessionTimeout how long after its last successful heartbeat the broker stops counting
 *     itself active (it leads nothing); the coordinators' session timeout, after which they fence it
 * @param metadataMaxWait how long one metadata long poll waits for a change; at most 15 s (the
 *     coordinators' default {@code tributary.coordinator.control.max-wait})
 * @param connectTimeout how long connecting to one coordinator may take
 * @param requestTimeout how long one control-plane call may take in all, retries included (a long
 *     poll adds its wait)
 * @param retryBackoff the pause between rounds of retries, and after a failed registration or poll
 * @param maxAttempts requests one control-plane call may send before it fails
 * @param maxRedirects 307 hops (to the Raft leader) one request may follow
 * @param maxResponseSize the largest coordinator answer read (a full metadata image is the largest)
 * @param stopTimeout how long stopping waits for the heartbeat and metadata threads
 * @param controlledShutdownTimeout how long a clean stop may spend on the controlled shutdown (the
 *     coordinators fence this broker and move its leaderships, and this broker's image has it)
 *     before the listener closes anyway; {@code 0s} turns the controlled shutdown off (leaderships
 *     then move when the session expires)
 * @param groupCoordinatorRefresh a cached group coordinator (the coordinators' leader's Kafka
 *     endpoint, for FindCoordinator) older than this is looked up again in the background
 * @param groupCoordinatorMaxAge a cached group coordinator older than this is not served any more
 * @param groupCoordinatorMaxWait how long a FindCoordinator request waits for a lookup when nothing
 *     may be served; then it answers COORDINATOR_NOT_AVAILABLE (retriable)
 * @param groupCoordinatorRetryAfterFailure a failed lookup of the group coordinator (no leader
 *     during an election, or the control plane unreachable) is remembered this long, then looked
 *     up again; at most {@code groupCoordinatorRefresh}
 * @param groupCoordinatorConnectTimeout how long connecting to the group coordinator's Kafka
 *     listener may take when a request is forwarded there (ListGroups and the group APIs)
 * @param groupCoordinatorRequestTimeout how long the group coordinator may take to answer a
 *     forwarded request (the client's connection thread waits that long at most); a JoinGroup or
 *     SyncGroup adds its rebalance wait
 * @param groupCoordinatorMaxRebalanceWait the longest a forwarded JoinGroup or SyncGroup may wait
 *     on the group coordinator for a rebalance (a JoinGroup waits its rebalance timeout, capped at
 *     this; a SyncGroup this), plus {@code groupCoordinatorRequestTimeout}; the coordinators' {@code
 *     tributary.coordinator.groups.max-rebalance-timeout} (15 minutes by default), which caps the
 *     members' rebalance timeouts; at most 24 hours
 * @param secretFile the cluster's internal secret (the coordinators' {@code
 *     tributary.coordinator.control.secret-file}): this broker derives its own key from it and signs
 *     every control-plane call (docs/control-plane.md, Authentication); unset with {@code keyFile}
 *     unset, calls go unsigned
 * @param keyFile instead of the secret, only this broker's key (base64), so that this broker cannot
 *     act for another; at most one of the two is set. With either, the broker's internal Kafka
 *     listener requires a SCRAM login, and the broker logs in to other brokers' and the
 *     coordinators' ({@link InternalAuthConfiguration})
 * @param sslTruststoreLocation the authorities of {@code https://} coordinators' certificates
 *     ({@code tributary.broker.coordinators} entries may be {@code https://host:port}); unset: the
 *     JDK's default authorities
 * @param sslTruststoreType {@code PEM} (certificates), {@code PKCS12} or {@code JKS}
 * @param sslTruststorePassword the trust store's password (not read for {@code PEM})
 */
@Validated
@ConfigurationProperties("tributary.broker.cluster")
public record ClusterProperties(
        @DefaultValue("1s") @NotNull Duration heartbeatInterval,
        @DefaultValue("6s") @NotNull Duration sessionTimeout,
        @DefaultValue("10s") @NotNull Duration metadataMaxWait,
        @DefaultValue("2s") @NotNull Duration connectTimeout,
        @DefaultValue("30s") @NotNull Duration requestTimeout,
        @DefaultValue("200ms") @NotNull Duration retryBackoff,
        @DefaultValue("20") @Min(1) @Max(1000) int maxAttempts,
        @DefaultValue("3") @Min(0) @Max(10) int maxRedirects,
        @DefaultValue("64MB") @NotNull DataSize maxResponseSize,
        @DefaultValue("5s") @NotNull Duration stopTimeout,
        @DefaultValue("5s") @NotNull Duration controlledShutdownTimeout,
        @DefaultValue("2s") @NotNull Duration groupCoordinatorRefresh,
        @DefaultValue("30s") @NotNull Duration groupCoordinatorMaxAge,
        @DefaultValue("500ms") @NotNull Duration groupCoordinatorMaxWait,
        @DefaultValue("200ms") @NotNull Duration groupCoordinatorRetryAfterFailure,
        @DefaultValue("1s") @NotNull Duration groupCoordinatorConnectTimeout,
        @DefaultValue("5s") @NotNull Duration groupCoordinatorRequestTimeout,
        @DefaultValue("15m") @NotNull Duration groupCoordinatorMaxRebalanceWait,
        Path secretFile,
        Path keyFile,
        Path sslTruststoreLocation,
        @DefaultValue("PEM") @NotNull String sslTruststoreType,
        String sslTruststorePassword) {

    /** The coordinators' default {@code max-wait}: a longer long poll is refused with 400. */
    static final Duration MAX_METADATA_WAIT = Duration.ofSeconds(15);

    /** The longest a FindCoordinator request may wait for a lookup: a request thread is not parked for long. */
    static final Duration MAX_GROUP_COORDINATOR_WAIT = Duration.ofSeconds(5);

    /**
     * The longest {@code group-coordinator-max-rebalance-wait}: a forwarded JoinGroup holds a socket
     * and a connection thread that long; no rebalance should take longer.
     */
    static final Duration MAX_GROUP_REBALANCE_WAIT = Duration.ofHours(24);

    public ClusterProperties {
        if (sslTruststoreType != null && !TlsSettings.STORE_TYPES.contains(sslTruststoreType)) {
            throw new IllegalArgumentException(
                    "tributary.broker.cluster.ssl-truststore-type must be PEM, PKCS12 or JKS, got "
                            + sslTruststoreType);
        }
        if (secretFile != null && keyFile != null) {
            throw new IllegalArgumentException(
                    "set tributary.broker.cluster.secret-file or tributary.broker.cluster.key-file, not both");
        }
        positive(heartbeatInterval, "heartbeat-interval");
        positive(sessionTimeout, "session-timeout");
        positive(connectTimeout, "connect-timeout");
        positive(requestTimeout, "request-timeout");
        positive(retryBackoff, "retry-backoff");
        positive(stopTimeout, "stop-timeout");
        if (controlledShutdownTimeout != null && controlledShutdownTimeout.isNegative()) {
            throw new IllegalArgumentException(
                    "tributary.broker.cluster.controlled-shutdown-timeout must be 0s or more, got "
                            + controlledShutdownTimeout);
        }
        positive(groupCoordinatorRefresh, "group-coordinator-refresh");
        positive(groupCoordinatorConnectTimeout, "group-coordinator-connect-timeout");
        positive(groupCoordinatorRequestTimeout, "group-coordinator-request-timeout");
        positive(groupCoordinatorMaxRebalanceWait, "group-coordinator-max-rebalance-wait");
        if (groupCoordinatorMaxRebalanceWait != null
                && groupCoordinatorMaxRebalanceWait.compareTo(MAX_GROUP_REBALANCE_WAIT) > 0) {
            throw new IllegalArgumentException(
                    "tributary.broker.cluster.group-coordinator-max-rebalance-wait must be at most %s, got %s"
                            .formatted(MAX_GROUP_REBALANCE_WAIT, groupCoordinatorMaxRebalanceWait));
        }
        if (groupCoordinatorRefresh != null
                && groupCoordinatorMaxAge != null
                && groupCoordinatorMaxAge.compareTo(groupCoordinatorRefresh) < 0) {
            throw new IllegalArgumentException(
                    "tributary.broker.cluster.group-coordinator-max-age (%s) must be at least group-coordinator-refresh (%s)"
                            .formatted(groupCoordinatorMaxAge, groupCoordinatorRefresh));
        }
        positive(groupCoordinatorRetryAfterFailure, "group-coordinator-retry-after-failure");
        if (groupCoordinatorRefresh != null
                && groupCoordinatorRetryAfterFailure != null
                && groupCoordinatorRetryAfterFailure.compareTo(groupCoordinatorRefresh) > 0) {
            throw new IllegalArgumentException(
                    "tributary.broker.cluster.group-coordinator-retry-after-failure (%s) must be at most group-coordinator-refresh (%s)"
                            .formatted(groupCoordinatorRetryAfterFailure, groupCoordinatorRefresh));
        }
        if (groupCoordinatorMaxWait != null
                && (groupCoordinatorMaxWait.isNegative()
                        || groupCoordinatorMaxWait.compareTo(MAX_GROUP_COORDINATOR_WAIT) > 0)) {
            throw new IllegalArgumentException(
                    "tributary.broker.cluster.group-coordinator-max-wait must be 0s..%s, got %s"
                            .formatted(MAX_GROUP_COORDINATOR_WAIT, groupCoordinatorMaxWait));
        }
        if (heartbeatInterval != null && sessionTimeout != null && heartbeatInterval.compareTo(sessionTimeout) >= 0) {
            throw new IllegalArgumentException(
                    "tributary.broker.cluster.heartbeat-interval (%s) must be below session-timeout (%s)"
                            .formatted(heartbeatInterval, sessionTimeout));
        }
        if (metadataMaxWait != null
                && (metadataMaxWait.isNegative() || metadataMaxWait.compareTo(MAX_METADATA_WAIT) > 0)) {
            throw new IllegalArgumentException("tributary.broker.cluster.metadata-max-wait must be 0s..%s, got %s"
                    .formatted(MAX_METADATA_WAIT, metadataMaxWait));
        }
        if (maxResponseSize != null && (maxResponseSize.toBytes() < 1024)) {
            throw new IllegalArgumentException(
                    "tributary.broker.cluster.max-response-size must be 1KB or more, got " + maxResponseSize);
        }
    }

    private static void positive(Duration d, String name) {
        if (d != null && !d.isPositive()) {
            throw new IllegalArgumentException("tributary.broker.cluster." + name + " must be positive, got " + d);
        }
    }

    /** The control-plane client's config for these coordinators, signing as broker {@code brokerId} when a secret or key is set. */
    HttpControlPlane.Config controlPlaneConfig(int brokerId, List<String> coordinators) {
        return new HttpControlPlane.Config(
                coordinators,
                connectTimeout,
                requestTimeout,
                retryBackoff,
                maxAttempts,
                maxRedirects,
                maxResponseSize.toBytes(),
                brokerKey(brokerId),
                sslTruststoreLocation == null
                        ? null
                        : TrustStores.clientContext(
                                sslTruststoreLocation,
                                sslTruststoreType,
                                sslTruststorePassword == null ? null : sslTruststorePassword.toCharArray()));
    }

    /**
     * This broker's login on the internal Kafka listeners (other brokers', the coordinators'),
     * derived from its key; empty when neither a secret nor a key file is set.
     */
    Optional<InternalLogin> kafkaLogin(int brokerId) {
        return Optional.ofNullable(brokerKey(brokerId)).map(BrokerKey::kafkaLogin);
    }

    /** This broker's control-plane key, read now; null when neither a secret nor a key file is set. */
    private BrokerKey brokerKey(int brokerId) {
        if (secretFile != null) {
            return ClusterSecret.read(secretFile).brokerKey(brokerId);
        }
        return keyFile == null ? null : BrokerKey.read(brokerId, keyFile);
    }

    /** The follower's config for this broker. */
    MetadataFollower.Config followerConfig(int brokerId, String rack) {
        return new MetadataFollower.Config(
                brokerId,
                Optional.ofNullable(rack).filter(r -> !r.isBlank()),
                heartbeatInterval,
                sessionTimeout,
                metadataMaxWait,
                retryBackoff,
                stopTimeout);
    }

    GroupCoordinatorLocator.Config groupCoordinatorConfig() {
        return new GroupCoordinatorLocator.Config(
                groupCoordinatorRefresh,
                groupCoordinatorMaxAge,
                groupCoordinatorMaxWait,
                groupCoordinatorRetryAfterFailure);
    }

    CoordinatorGroupsClient.Config coordinatorGroupsClientConfig() {
        return new CoordinatorGroupsClient.Config(
                groupCoordinatorConnectTimeout,
                groupCoordinatorRequestTimeout,
                (int) Math.min(Integer.MAX_VALUE, maxResponseSize.toBytes()),
                groupCoordinatorMaxRebalanceWait);
    }
}
