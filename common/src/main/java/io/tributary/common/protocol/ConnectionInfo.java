package io.tributary.common.protocol;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Who sent a request: the connection it came on, and the listener that accepted it.
 *
 * @param id a name unique within this process for the life of the connection, for logs
 * @param remoteAddress the client's address and port
 * @param listener the name of the listener that accepted the connection ({@link
 *     ProtocolServerConfig#name()}): a service with several listeners (a broker's internal and
 *     external one) answers with the addresses of the listener a request came in on
 */
public record ConnectionInfo(String id, InetSocketAddress remoteAddress, String listener) {

    public ConnectionInfo {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(remoteAddress, "remoteAddress");
        Objects.requireNonNull(listener, "listener");
    }
}
