package io.tributary.coordinator.api;

import java.io.IOException;
import java.util.UUID;

/**
 * Where heartbeats and controlled shutdowns go on the leader: the liveness loop (no Raft write for a
 * heartbeat unless a broker is unfenced).
 */
public interface Heartbeats {

    /**
     * @throws io.tributary.coordinator.metadata.MetadataException if the broker is unknown or the
     *     incarnation is stale
     * @throws IOException if an unfence could not be committed
     */
    void heartbeat(int brokerId, UUID incarnationId) throws IOException;

    /**
     * A broker's controlled shutdown: fences this incarnation now (one Raft write, unless it is
     * fenced already), so its leaderships move at once; later heartbeats of it do not unfence it.
     *
     * @return the metadata version that has the broker fenced
     * @throws io.tributary.coordinator.metadata.MetadataException if the broker is unknown or the
     *     incarnation is stale
     * @throws IOException if the fence could not be committed
     */
    long shutdown(int brokerId, UUID incarnationId) throws IOException;
}
