package io.tributary.broker.replication;

import java.time.Duration;
import java.util.Objects;

/**
 * The bounds of replication: follower fetchers and ISR changes. Kafka's broker configs in brackets.
 *
 * @param listener the listener name of the leader's endpoint the fetchers connect to ({@code
 *     PLAINTEXT})
 * @param fetchMaxBytes bytes asked per partition in one Fetch ({@code replica.fetch.max.bytes}, 1 MiB);
 *     the first batch of a response comes whole even if larger
 * @param fetchResponseMaxBytes bytes asked per Fetch response ({@code
 *     replica.fetch.response.max.bytes}, 10 MiB)
 * @param fetchMaxWait how long the leader may hold a Fetch for new data ({@code
 *     replica.fetch.wait.max.ms}, 500 ms)
 * @param fetchMinBytes bytes the leader waits for before answering ({@code replica.fetch.min.bytes}, 1)
 * @param fetchBackoff pause after a failed fetch or connection, and before retrying a partition the
 *     leader answered with an error ({@code replica.fetch.backoff.ms}, 1 s)
 * @param connectTimeout connecting to a leader
 * @param socketTimeout how long a fetcher waits for one answer ({@code replica.socket.timeout.ms},
 *     30 s); must exceed {@code fetchMaxWait}
 * @param lagTimeMax a follower not caught up for this long leaves the ISR ({@code
 *     replica.lag.time.max.ms}, 30 s)
 * @param isrCheckInterval how often the leader looks for followers to drop from the ISR (Kafka: half
 *     of {@code replica.lag.time.max.ms})
 * @param alterPartitionRetryBackoff pause before proposing again after a failed AlterPartition
 * @param stopTimeout how long stopping waits for one fetcher thread
 */
public record ReplicationConfig(
        String listener,
        int fetchMaxBytes,
        int fetchResponseMaxBytes,
        Duration fetchMaxWait,
        int fetchMinBytes,
        Duration fetchBackoff,
        Duration connectTimeout,
        Duration socketTimeout,
        Duration lagTimeMax,
        Duration isrCheckInterval,
        Duration alterPartitionRetryBackoff,
        Duration stopTimeout) {

    public static final String DEFAULT_LISTENER = "PLAINTEXT";

    public ReplicationConfig {
        Objects.requireNonNull(listener, "listener");
        if (fetchMaxBytes < 1 || fetchResponseMaxBytes < 1 || fetchMinBytes < 0) {
            throw new IllegalArgumentException("fetch byte bounds must be positive");
        }
        for (Duration d : new Duration[] {
            fetchMaxWait,
            fetchBackoff,
            connectTimeout,
            socketTimeout,
            lagTimeMax,
            isrCheckInterval,
            alterPartitionRetryBackoff,
            stopTimeout
        }) {
            Objects.requireNonNull(d, "duration");
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("replication durations must be positive: " + d);
            }
        }
        if (socketTimeout.compareTo(fetchMaxWait) <= 0) {
            throw new IllegalArgumentException(
                    "the socket timeout " + socketTimeout + " must exceed the fetch wait " + fetchMaxWait);
        }
    }

    /** Kafka's defaults. */
    public static ReplicationConfig defaults() {
        return new ReplicationConfig(
                DEFAULT_LISTENER,
                1024 * 1024,
                10 * 1024 * 1024,
                Duration.ofMillis(500),
                1,
                Duration.ofSeconds(1),
                Duration.ofSeconds(5),
                Duration.ofSeconds(30),
                Duration.ofSeconds(30),
                Duration.ofSeconds(15),
                Duration.ofSeconds(1),
                Duration.ofSeconds(5));
    }

    /** These bounds with another lag time and ISR check interval (tests). */
    public ReplicationConfig withLagTime(Duration lagTime, Duration checkInterval) {
        return new ReplicationConfig(
                listener,
                fetchMaxBytes,
                fetchResponseMaxBytes,
                fetchMaxWait,
                fetchMinBytes,
                fetchBackoff,
                connectTimeout,
                socketTimeout,
                lagTime,
                checkInterval,
                alterPartitionRetryBackoff,
                stopTimeout);
    }

    /** These bounds with another fetch wait and backoff (tests). */
    public ReplicationConfig withFetchTiming(Duration maxWait, Duration backoff) {
        return new ReplicationConfig(
                listener,
                fetchMaxBytes,
                fetchResponseMaxBytes,
                maxWait,
                fetchMinBytes,
                backoff,
                connectTimeout,
                socketTimeout,
                lagTimeMax,
                isrCheckInterval,
                alterPartitionRetryBackoff,
                stopTimeout);
    }
}
