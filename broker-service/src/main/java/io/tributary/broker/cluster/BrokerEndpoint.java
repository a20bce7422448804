package io.tributary.broker.cluster;

import java.util.Objects;

/**
 * One listener of a broker, as it registered it with the coordinator.
 *
 * @param listener the listener's name ({@code PLAINTEXT})
 * @param host the advertised host name or address clients connect to
 * @param port the advertised port
 */
public record BrokerEndpoint(String listener, String host, int port) {

    public BrokerEndpoint {
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(host, "host");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }
}
