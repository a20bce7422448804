package io.tributary.gateway.consume;

import io.tributary.gateway.metrics.GatewayMetrics;
import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.sse.CursorCodec;
import io.tributary.gateway.sse.RecordEvent;
import io.tributary.gateway.sse.SseFrames;
import io.tributary.gateway.sse.StreamCursor;
import io.tributary.gateway.sse.StreamState;
import io.tributary.gateway.table.TableJson;
import io.tributary.gateway.table.TableReader;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The snapshot of {@code GET /v1/topics/{topic}/events?from=earliest&snapshot=true}: before its live
 * events, a stream gets the topic's table as of its starting position (the partitions' ends when it
 * opened, the vector), then {@code snapshot-end}, then the records from exactly that vector. Frames,
 * byte for byte (UTF-8, {@code \n} line ends):
 *
 * <pre>
 * event: record\n
 * data: {"topic":"orders","partition":0,"offset":41,"timestamp":"2026-11-29T21:00:01Z","key":"customer-7","value":{"total":12},"headers":{}}\n
 * \n
 * event: snapshot-end\n
 * id: v1.wE3gVQ8uQ4yq1mY3cS3h0A.AgArABE\n
 * data: {"cursor":"v1.wE3gVQ8uQ4yq1mY3cS3h0A.AgArABE","next_offsets":{"0":43,"1":17},"records":1}\n
 * \n
 * </pre>
 *
 * A snapshot record is a {@code record} event (one per live key, its latest record below the vector,
 * never a tombstone) <em>without</em> an {@code id}: a position inside a snapshot is not a cursor, so
 * a client cut during the snapshot reconnects without {@code Last-Event-ID} and gets the whole
 * snapshot again. {@code snapshot-end}'s id and {@code cursor} are the vector ({@code TableJson}):
 * from there on every event has its id as usual, and resuming from any of them skips the snapshot
 * ({@code Last-Event-ID} wins over {@code snapshot}). Nothing at or past the vector is in the
 * snapshot and the live events start exactly at it: no gap, no duplicate.
 *
 * <p>The reader is borrowed for the stream's whole snapshot ({@code table.readers}). The stream's
 * own reader runs the phase ({@link #run}) and gives the reader back; when the stream ended before
 * that, the request's thread gives it back ({@link #abandon}). Thread-safe.
 */
final class SnapshotPhase {

    /** The event after the snapshot. */
    static final String SNAPSHOT_END = "snapshot-end";

    private static final int NEW = 0;
    private static final int RUNNING = 1;
    private static final int ABANDONED = 2;

    private final TableReaders.Lease lease;
    private final Duration slowClientTimeout;
    private final GatewayMetrics metrics;
    private final AtomicInteger state = new AtomicInteger(NEW);

    SnapshotPhase(TableReaders.Lease lease, Duration slowClientTimeout, GatewayMetrics metrics) {
        this.lease = lease;
        this.slowClientTimeout = slowClientTimeout;
        this.metrics = metrics;
    }

    /**
     * Whether {@code snapshot=} asks for a snapshot: {@code true} with {@code from=earliest}; not when
     * resuming (the client had it). 400 {@code invalid-parameter} for another value or another
     * {@code from}.
     */
    static boolean requested(String snapshot, String from, boolean resuming) {
        if (snapshot == null || snapshot.strip().equals("false")) {
            return false;
        }
        if (!snapshot.strip().equals("true")) {
            throw ProblemException.invalidParameter(
                    "snapshot", "snapshot must be true or false, got '%s'.".formatted(snapshot));
        }
        if (resuming) {
            return false;
        }
        if (from == null || !from.strip().equals("earliest")) {
            throw ProblemException.invalidParameter(
                    "snapshot",
                    "snapshot=true needs from=earliest (the snapshot is the table from the log start), got from=%s."
                            .formatted(from == null ? "latest" : from.strip()));
        }
        return true;
    }

    /**
     * Puts the table of {@code stream}'s topic as of its position now (nothing delivered yet) in its
     * buffer, then {@code snapshot-end}; waits up to the slow-client timeout for room each time.
     * False when the client was too slow or the stream closed; a failure is a {@link
     * ProblemException}.
     */
    boolean run(StreamState stream) throws InterruptedException {
        if (!state.compareAndSet(NEW, RUNNING)) {
            return false;
        }
        try {
            StreamCursor vector = stream.cursor();
            TableReader.Result result = lease.reader()
                    .read(
                            stream.topic(),
                            vector.nextOffsets(),
                            r -> stream.offerWaiting(
                                    SseFrames.control(
                                            RecordEvent.RECORD,
                                            RecordEvent.of(r).data()),
                                    slowClientTimeout));
            if (!result.complete()) {
                return false;
            }
            metrics.consumed(stream.topic(), "table", result.records());
            String cursor = CursorCodec.encode(vector);
            byte[] end = SseFrames.event(
                    SNAPSHOT_END, cursor, TableJson.end(cursor, vector.nextOffsets(), result.records()));
            return stream.offerWaiting(end, slowClientTimeout);
        } catch (IOException e) {
            throw new IllegalStateException("the snapshot's sink writes to memory only", e);
        } finally {
            lease.close();
        }
    }

    /** Gives the reader back if the phase never ran (the stream ended first). */
    void abandon() {
        if (state.compareAndSet(NEW, ABANDONED)) {
            lease.close();
        }
    }
}
