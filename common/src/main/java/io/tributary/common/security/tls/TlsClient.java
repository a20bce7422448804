package io.tributary.common.security.tls;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * The TLS side of Tributary's own Kafka-protocol clients (a follower fetching from its leader's
 * internal listener, a broker forwarding group requests to the coordinators' Kafka listener), as a
 * Kafka client with {@code security.protocol=SSL} or {@code SASL_SSL}: it trusts the authorities of
 * a trust store (the cluster's CA), presents no certificate, and checks by default that the server's
 * certificate names the host it connected to (Kafka's {@code
 * ssl.endpoint.identification.algorithm=https}: a DNS name or IP address in the certificate's
 * subject alternative names, as HTTPS clients check). The JDK's TLS does the work; the trust store
 * is read once, when this is made.
 *
 * <p>Thread-safe: connection threads call {@link #secure} concurrently.
 */
public final class TlsClient {

    /** Kafka's {@code ssl.endpoint.identification.algorithm} that checks the host name, the default. */
    public static final String HTTPS = "https";

    private final SSLContext context;
    private final List<String> protocols;
    private final String endpointIdentification;

    /**
     * Reads the trust store now.
     *
     * @param trustStore the authorities whose server certificates are accepted, or null for the
     *     JDK's default ones ({@code ssl.truststore.location})
     * @param trustStoreType {@code PKCS12}, {@code JKS} or {@code PEM} (certificates)
     * @param trustStorePassword its password, or null (not read for {@code PEM})
     * @param protocols the TLS versions offered, from {@link TlsSettings#ALLOWED_PROTOCOLS}
     * @param endpointIdentification {@link #HTTPS} to check the server's host name in its
     *     certificate, or empty to accept any certificate the trust store's authorities signed
     * @throws IllegalArgumentException naming the file when the trust store cannot be read, or a
     *     protocol or algorithm that is not offered
     */
    public TlsClient(
            Path trustStore,
            String trustStoreType,
            char[] trustStorePassword,
            List<String> protocols,
            String endpointIdentification) {
        this.protocols = List.copyOf(protocols);
        if (this.protocols.isEmpty() || !TlsSettings.ALLOWED_PROTOCOLS.containsAll(this.protocols)) {
            throw new IllegalArgumentException(
                    "TLS protocols must be some of " + TlsSettings.ALLOWED_PROTOCOLS + ", got " + protocols);
        }
        String algorithm = Objects.requireNonNull(endpointIdentification, "endpointIdentification")
                .trim()
                .toLowerCase(Locale.ROOT);
        if (!algorithm.isEmpty() && !algorithm.equals(HTTPS)) {
            throw new IllegalArgumentException(
                    "ssl.endpoint.identification.algorithm is https or empty, got '" + endpointIdentification + "'");
        }
        this.endpointIdentification = algorithm;
        this.context = TrustStores.clientContext(trustStore, trustStoreType, trustStorePassword);
    }

    /** Whether the server's host name is checked against its certificate. */
    public boolean checksHostName() {
        return !endpointIdentification.isEmpty();
    }

    /**
     * Runs the TLS handshake on {@code connected} (a socket connected to {@code host}:{@code port},
     * its read timeout bounding the handshake) and answers the TLS socket to use from now on;
     * closing it closes {@code connected}.
     *
     * @throws IOException when the handshake fails: an untrusted certificate, a host name the
     *     certificate does not name, a server that does not speak TLS
     */
    public SSLSocket secure(Socket connected, String host, int port) throws IOException {
        SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(connected, host, port, true);
        tls.setUseClientMode(true);
        SSLParameters parameters = tls.getSSLParameters();
        parameters.setProtocols(protocols.toArray(String[]::new));
        if (!endpointIdentification.isEmpty()) {
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
        }
        tls.setSSLParameters(parameters);
        tls.startHandshake();
        return tls;
    }

    @Override
    public String toString() {
        return "TlsClient[protocols=" + protocols + ", endpointIdentification="
                + (endpointIdentification.isEmpty() ? "none" : endpointIdentification) + "]";
    }
}
