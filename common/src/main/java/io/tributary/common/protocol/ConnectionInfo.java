package io.tributary.common.protocol;

import io.tributary.common.security.acl.KafkaPrincipal;
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
 * @param principal who the connection authenticated as: {@code User:ANONYMOUS} on a listener without
 *     authentication, {@code User:<name>} after a SASL exchange
 */
public record ConnectionInfo(String id, InetSocketAddress remoteAddress, String listener, KafkaPrincipal principal) {

    public ConnectionInfo {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(remoteAddress, "remoteAddress");
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(principal, "principal");
    }

    /** A connection on a listener without authentication: {@code User:ANONYMOUS}, as Kafka's. */
    public ConnectionInfo(String id, InetSocketAddress remoteAddress, String listener) {
        this(id, remoteAddress, listener, KafkaPrincipal.ANONYMOUS);
    }

    /** This connection once it authenticated as {@code authenticated}. */
    public ConnectionInfo withPrincipal(KafkaPrincipal authenticated) {
        return new ConnectionInfo(id, remoteAddress, listener, authenticated);
    }
}
