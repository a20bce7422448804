package io.tributary.coordinator.liveness;

import java.time.Duration;
import java.util.Objects;

/**
 * Liveness bounds.
 *
 * @param heartbeatInterval how often brokers heartbeat, and how often the leader should call {@link
 *     BrokerLiveness#tick} (default 1 s, as in the issue)
 * @param sessionTimeout a broker not heard from for longer than this is fenced (default 6 s: six
 *     missed heartbeats, long enough for a GC pause, short enough that a dead leader's partitions
 *     move within seconds)
 * @param preferredLeaderDelay how long a broker must have been unfenced before leadership goes back
 *     to it as preferred leader (default 30 s: a flapping broker does not drag leadership back and
 *     forth, and it has time to rejoin the ISR first)
 */
public record LivenessConfig(Duration heartbeatInterval, Duration sessionTimeout, Duration preferredLeaderDelay) {

    public static final LivenessConfig DEFAULTS =
            new LivenessConfig(Duration.ofSeconds(1), Duration.ofSeconds(6), Duration.ofSeconds(30));

    public LivenessConfig {
        Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
        Objects.requireNonNull(sessionTimeout, "sessionTimeout");
        Objects.requireNonNull(preferredLeaderDelay, "preferredLeaderDelay");
        if (heartbeatInterval.isNegative() || heartbeatInterval.isZero()) {
            throw new IllegalArgumentException("heartbeatInterval must be positive");
        }
        if (sessionTimeout.compareTo(heartbeatInterval) <= 0) {
            throw new IllegalArgumentException("sessionTimeout (%s) must be longer than heartbeatInterval (%s)"
                    .formatted(sessionTimeout, heartbeatInterval));
        }
        if (preferredLeaderDelay.isNegative()) {
            throw new IllegalArgumentException("preferredLeaderDelay must not be negative");
        }
    }
}
