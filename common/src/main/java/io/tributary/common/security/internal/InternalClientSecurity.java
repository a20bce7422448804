package io.tributary.common.security.internal;

import io.tributary.common.security.tls.TlsClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How one of Tributary's own Kafka-protocol clients secures a connection to an internal listener (a
 * follower to its leader's, a broker to the coordinators'): TLS first when {@code tls} is present,
 * then the SCRAM-SHA-512 login when {@code login} is present, inside the TLS session; Kafka's
 * {@code PLAINTEXT}, {@code SSL}, {@code SASL_PLAINTEXT} or {@code SASL_SSL} as both are absent or
 * present.
 *
 * @param login the internal login ({@code tributary-broker-<id>}), when the cluster secret is set
 * @param tls the TLS client, when the listener connected to is TLS
 */
public record InternalClientSecurity(Optional<InternalLogin> login, Optional<TlsClient> tls) {

    /** Neither TLS nor a login: {@code PLAINTEXT}. */
    public static final InternalClientSecurity PLAINTEXT =
            new InternalClientSecurity(Optional.empty(), Optional.empty());

    public InternalClientSecurity {
        Objects.requireNonNull(login, "login");
        Objects.requireNonNull(tls, "tls");
    }

    /** A login without TLS ({@code SASL_PLAINTEXT}), or {@link #PLAINTEXT} without one. */
    public static InternalClientSecurity of(Optional<InternalLogin> login) {
        return new InternalClientSecurity(login, Optional.empty());
    }

    /** Kafka's name for this combination. */
    public String protocolName() {
        if (tls.isEmpty()) {
            return login.isEmpty() ? "PLAINTEXT" : "SASL_PLAINTEXT";
        }
        return login.isEmpty() ? "SSL" : "SASL_SSL";
    }

    /**
     * A socket connected to {@code host}:{@code port}, its TLS handshake done and logged in, as
     * configured; its read timeout is {@code readTimeout} (which bounds the handshake and the login
     * too).
     *
     * @param clientId the client id of the login's requests
     * @param maxLoginResponseBytes the largest login answer read
     * @throws IOException when connecting or the handshake fails
     * @throws ScramSocketLogin.LoginFailedException when the login is refused
     */
    public Socket connect(
            String host,
            int port,
            Duration connectTimeout,
            Duration readTimeout,
            String clientId,
            int maxLoginResponseBytes)
            throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(host, port), Math.toIntExact(connectTimeout.toMillis()));
            socket.setSoTimeout(Math.toIntExact(readTimeout.toMillis()));
            socket.setTcpNoDelay(true);
            Socket secured = tls.isPresent() ? tls.get().secure(socket, host, port) : socket;
            if (login.isPresent()) {
                ScramSocketLogin.login(secured, login.get(), clientId, maxLoginResponseBytes);
            }
            return secured;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }
}
