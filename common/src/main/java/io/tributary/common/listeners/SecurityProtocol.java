package io.tributary.common.listeners;

/** Kafka's security protocols: what a listener puts between the socket and the Kafka protocol. */
public enum SecurityProtocol {
    /** Neither TLS nor SASL: every connection is {@code User:ANONYMOUS}. */
    PLAINTEXT,
    /** TLS; the principal comes from the client certificate (or ANONYMOUS without one). */
    SSL,
    /** SASL without TLS. */
    SASL_PLAINTEXT,
    /** SASL inside TLS. */
    SASL_SSL;

    /** Whether connections start with a TLS handshake. */
    public boolean usesTls() {
        return this == SSL || this == SASL_SSL;
    }

    /** Whether connections authenticate with SASL before anything but ApiVersions. */
    public boolean usesSasl() {
        return this == SASL_PLAINTEXT || this == SASL_SSL;
    }
}
