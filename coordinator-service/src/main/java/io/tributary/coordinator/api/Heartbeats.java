package io.tributary.coordinator.api;

import java.io.IOException;
import java.util.UUID;

/** Where heartbeats go on the leader: the liveness loop (no Raft write unless a broker is unfenced). */
@FunctionalInterface
public interface Heartbeats {

    /**
     * @throws io.tributary.coordinator.metadata.MetadataException if the broker is unknown or the
     *     incarnation is stale
     * @throws IOException if an unfence could not be committed
     */
    void heartbeat(int brokerId, UUID incarnationId) throws IOException;
}
