package io.tributary.gateway.consume;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Bounds on Server-Sent Event streams ({@code tributary.gateway.sse.*}).
 *
 * @param maxStreams the most streams open at once on this gateway; one more is 429 {@code
 *     too-many-streams}
 * @param bufferSize the most bytes of events read from the cluster and not yet written to one client
 * @param slowClientTimeout how long a stream's buffer may stay full before the stream is closed as
 *     slow (the client resumes from its last event id)
 * @param heartbeatInterval a {@code :} comment is written after this long without an event
 * @param retry the reconnection delay sent once in {@code retry:}
 * @param consumers consumers that poll the cluster for streams; a stream holds one only while it
 *     polls, so this bounds the threads blocked in the cluster's client, not the streams
 * @param pollWait how long one poll for a stream waits for records before its consumer is handed on
 *     (also one poll of a shared tail reader)
 * @param sharedConsumers consumers (each with one virtual thread) that the shared tail readers are
 *     spread over: every partition with streams at its end is fetched once, by one of them, for all
 *     those streams
 * @param tailHistorySize the most bytes of recent records a shared tail reader keeps per partition,
 *     so a stream that reaches the end just behind the reader can still join it
 */
@Validated
@ConfigurationProperties("tributary.gateway.sse")
public record SseProperties(
        @DefaultValue("1000") @Min(1) @Max(100_000) int maxStreams,
        @DefaultValue("1MB") @NotNull DataSize bufferSize,
        @DefaultValue("10s") @NotNull Duration slowClientTimeout,
        @DefaultValue("15s") @NotNull Duration heartbeatInterval,
        @DefaultValue("2s") @NotNull Duration retry,
        @DefaultValue("16") @Min(1) @Max(1024) int consumers,
        @DefaultValue("500ms") @NotNull Duration pollWait,
        @DefaultValue("4") @Min(1) @Max(256) int sharedConsumers,
        @DefaultValue("256KB") @NotNull DataSize tailHistorySize) {

    public SseProperties {
        positive("buffer-size", bufferSize == null ? 1 : bufferSize.toBytes());
        positive("slow-client-timeout", slowClientTimeout);
        positive("heartbeat-interval", heartbeatInterval);
        positive("retry", retry);
        positive("poll-wait", pollWait);
        positive("tail-history-size", tailHistorySize == null ? 1 : tailHistorySize.toBytes());
    }

    private static void positive(String key, Duration d) {
        if (d != null) {
            positive(key, d.toMillis());
        }
    }

    private static void positive(String key, long n) {
        if (n <= 0) {
            throw new IllegalArgumentException("tributary.gateway.sse." + key + " must be positive");
        }
    }
}
