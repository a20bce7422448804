package io.tributary.coordinator.metadata;

import java.util.Objects;

/**
 * One listener of a broker.
 *
 * @param listener the listener's name ({@code PLAINTEXT}, {@code HTTP}...), unique per broker
 * @param host the advertised host
 * @param port the advertised port, 1..65535
 */
public record Endpoint(String listener, String host, int port) {

    public Endpoint {
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(host, "host");
    }
}
