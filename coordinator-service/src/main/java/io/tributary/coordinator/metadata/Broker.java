package io.tributary.coordinator.metadata;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A registered broker as the replicated metadata knows it. Heartbeats are not here: they live only
 * on the Raft leader (see the liveness package) and never cost a Raft write.
 *
 * @param id the broker id, 0 or more
 * @param endpoints its listeners, in registration order
 * @param rack its rack, if it has one
 * @param incarnationId changes every time the broker process starts; a command naming an older
 *     incarnation is stale
 * @param registeredAtMs the Raft leader's clock when this incarnation registered (carried in the
 *     command, never read while applying)
 * @param fenced a fenced broker leads nothing and is in no ISR (except as the last member of an
 *     offline partition's ISR); it is unfenced by its first heartbeat
 */
public record Broker(
        int id,
        List<Endpoint> endpoints,
        Optional<String> rack,
        UUID incarnationId,
        long registeredAtMs,
        boolean fenced) {

    public Broker {
        endpoints = List.copyOf(endpoints);
        Objects.requireNonNull(rack, "rack");
        Objects.requireNonNull(incarnationId, "incarnationId");
    }

    Broker withFenced(boolean newFenced) {
        return new Broker(id, endpoints, rack, incarnationId, registeredAtMs, newFenced);
    }
}
