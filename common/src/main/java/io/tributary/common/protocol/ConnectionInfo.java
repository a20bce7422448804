package io.tributary.common.protocol;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Who sent a request: the connection it came on.
 *
 * @param id a name unique within this process for the life of the connection, for logs
 * @param remoteAddress the client's address and port
 */
public record ConnectionInfo(String id, InetSocketAddress remoteAddress) {

    public ConnectionInfo {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(remoteAddress, "remoteAddress");
    }
}
