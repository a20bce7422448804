package io.tributary.broker.quota;

import java.time.Duration;
import java.util.Objects;

/**
 * How client byte rates are measured.
 *
 * @param windowCount the windows a rate is measured over (Kafka's {@code quota.window.num}, 11)
 * @param windowSize each window's length (Kafka's {@code quota.window.size.seconds}, 1 s)
 * @param maxTrackedClients the most (user, client id) rates one quota type keeps; past it the one
 *     idle longest is forgotten (Kafka forgets a client's sensors after an hour idle instead)
 */
public record QuotaConfig(int windowCount, Duration windowSize, int maxTrackedClients) {

    /** Kafka's defaults and a bound of 100,000 clients. */
    public static final QuotaConfig DEFAULTS = new QuotaConfig(11, Duration.ofSeconds(1), 100_000);

    public QuotaConfig {
        if (windowCount < 2) {
            throw new IllegalArgumentException("windowCount must be 2 or more, got " + windowCount);
        }
        Objects.requireNonNull(windowSize, "windowSize");
        if (windowSize.toMillis() < 1) {
            throw new IllegalArgumentException("windowSize must be 1 ms or more, got " + windowSize);
        }
        if (maxTrackedClients < 1) {
            throw new IllegalArgumentException("maxTrackedClients must be 1 or more, got " + maxTrackedClients);
        }
    }
}
