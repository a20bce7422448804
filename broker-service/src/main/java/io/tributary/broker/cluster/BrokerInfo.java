package io.tributary.broker.cluster;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * A registered broker as the coordinators know it.
 *
 * @param id the broker id
 * @param incarnationId the id of the process's current run; a restart registers a new one
 * @param endpoints its listeners
 * @param rack its rack or zone, or null when unknown
 * @param fenced whether the coordinator fenced it (missed heartbeats): it leads nothing
 */
public record BrokerInfo(int id, Uuid incarnationId, List<BrokerEndpoint> endpoints, String rack, boolean fenced) {

    public BrokerInfo {
        Objects.requireNonNull(incarnationId, "incarnationId");
        endpoints = List.copyOf(endpoints);
    }

    /** The endpoint of the named listener, if the broker has one. */
    public Optional<BrokerEndpoint> endpoint(String listener) {
        return endpoints.stream().filter(e -> e.listener().equals(listener)).findFirst();
    }
}
