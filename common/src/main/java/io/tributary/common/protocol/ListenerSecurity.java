package io.tributary.common.protocol;

import io.tributary.common.security.sasl.SaslSettings;
import io.tributary.common.security.tls.TlsSettings;

/**
 * How a listener secures its connections, as Kafka's security protocols: {@code PLAINTEXT} (both
 * null), {@code SSL} (TLS only: the principal is the client certificate's subject, or {@code
 * User:ANONYMOUS} without one), {@code SASL_PLAINTEXT} (SASL only) and {@code SASL_SSL} (both: the
 * principal is the SASL one).
 *
 * @param tls the TLS settings, or null for a listener without TLS
 * @param sasl the SASL settings, or null for a listener without SASL
 */
public record ListenerSecurity(TlsSettings tls, SaslSettings sasl) {

    /** No TLS, no SASL. */
    public static final ListenerSecurity PLAINTEXT = new ListenerSecurity(null, null);

    /** Kafka's name for this combination. */
    public String protocolName() {
        if (tls == null) {
            return sasl == null ? "PLAINTEXT" : "SASL_PLAINTEXT";
        }
        return sasl == null ? "SSL" : "SASL_SSL";
    }
}
