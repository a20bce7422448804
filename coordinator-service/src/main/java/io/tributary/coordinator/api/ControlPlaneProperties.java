package io.tributary.coordinator.api;

import io.tributary.common.security.internal.ClusterSecret;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Bounds of the control plane ({@code tributary.coordinator.control.*}).
 *
 * @param maxBodySize the largest request body accepted (413 above it)
 * @param maxWait the longest a metadata long poll may wait ({@code max_wait_ms} above it is a 400);
 *     below the 20 s graceful-shutdown phase, so a stop does not wait for parked polls
 * @param historyLength metadata versions whose changes each voter remembers; a broker further
 *     behind gets the full image
 * @param retryAfter the {@code Retry-After} of a 503 (no leader, write not committed)
 * @param secretFile the cluster's internal secret ({@link
 *     io.tributary.common.security.internal.ClusterSecret}): when set, every call must be signed
 *     by a broker's key derived from it (401 otherwise) and a broker acts only for its own id (403);
 *     unset, the control plane is open to anyone who reaches the port (a warning at start)
 * @param previousSecretFile during a rotation of the cluster secret, the secret being rotated out:
 *     a call signed with a key derived from it is accepted too (brokers not yet restarted with the
 *     new secret), and those brokers' internal SCRAM credentials stay made from it until they sign
 *     with the new one; never used to sign or to derive the coordinators' own login. Requires
 *     {@code secret-file}. Unset once every broker uses the new secret (docs/security.md,
 *     "Rotating the secret")
 * @param maxClockSkew how far a signed call's time may be from this coordinator's clock, either way
 */
@Validated
@ConfigurationProperties("tributary.coordinator.control")
public record ControlPlaneProperties(
        @DefaultValue("1MB") @NotNull DataSize maxBodySize,
        @DefaultValue("15s") @NotNull Duration maxWait,
        @DefaultValue("1000") @Min(1) @Max(1_000_000) int historyLength,
        @DefaultValue("1s") @NotNull Duration retryAfter,
        Path secretFile,
        Path previousSecretFile,
        @DefaultValue("5m") @NotNull Duration maxClockSkew) {

    public ControlPlaneProperties {
        if (maxBodySize.toBytes() < 1) {
            throw new IllegalArgumentException("tributary.coordinator.control.max-body-size must be positive");
        }
        if (maxWait.isNegative() || maxWait.isZero()) {
            throw new IllegalArgumentException("tributary.coordinator.control.max-wait must be positive");
        }
        if (retryAfter.toSeconds() < 1) {
            throw new IllegalArgumentException("tributary.coordinator.control.retry-after must be 1s or more");
        }
        if (maxClockSkew.isNegative() || maxClockSkew.isZero()) {
            throw new IllegalArgumentException("tributary.coordinator.control.max-clock-skew must be positive");
        }
        if (previousSecretFile != null && secretFile == null) {
            throw new IllegalArgumentException("tributary.coordinator.control.previous-secret-file needs"
                    + " tributary.coordinator.control.secret-file (the new secret) beside it");
        }
    }

    /**
     * The cluster secret, read now.
     *
     * @throws IllegalStateException when {@code secret-file} is not set
     * @throws IllegalArgumentException naming the file when it cannot be read or is too short
     */
    public ClusterSecret secret() {
        if (secretFile == null) {
            throw new IllegalStateException("tributary.coordinator.control.secret-file is not set");
        }
        return ClusterSecret.read(secretFile);
    }

    /**
     * The previous cluster secret during a rotation, read now; empty when {@code
     * previous-secret-file} is not set.
     *
     * @throws IllegalArgumentException naming the file when it cannot be read or is too short
     */
    public Optional<ClusterSecret> previousSecret() {
        return Optional.ofNullable(previousSecretFile).map(ClusterSecret::read);
    }
}
