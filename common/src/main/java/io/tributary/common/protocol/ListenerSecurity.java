package io.tributary.common.protocol;

import io.tributary.common.security.sasl.SaslSettings;
import io.tributary.common.security.tls.TlsContextSource;
import io.tributary.common.security.tls.TlsSettings;
import java.time.Duration;
import java.util.Objects;

/**
 * How a listener secures its connections, as Kafka's security protocols: {@code PLAINTEXT} (both
 * null), {@code SSL} (TLS only: the principal is the client certificate's subject, or {@code
 * User:ANONYMOUS} without one), {@code SASL_PLAINTEXT} (SASL only) and {@code SASL_SSL} (both: the
 * principal is the SASL one).
 *
 * @param tls the TLS settings, or null for a listener without TLS
 * @param sasl the SASL settings, or null for a listener without SASL
 * @param tlsFileCheckInterval how often at most the TLS files are looked at for a change, when a
 *     connection is accepted ({@link TlsContextSource})
 */
public record ListenerSecurity(TlsSettings tls, SaslSettings sasl, Duration tlsFileCheckInterval) {

    /** No TLS, no SASL. */
    public static final ListenerSecurity PLAINTEXT = new ListenerSecurity(null, null);

    public ListenerSecurity {
        Objects.requireNonNull(tlsFileCheckInterval, "tlsFileCheckInterval");
    }

    /** With the default TLS file check interval. */
    public ListenerSecurity(TlsSettings tls, SaslSettings sasl) {
        this(tls, sasl, TlsContextSource.DEFAULT_CHECK_INTERVAL);
    }

    /** Kafka's name for this combination. */
    public String protocolName() {
        if (tls == null) {
            return sasl == null ? "PLAINTEXT" : "SASL_PLAINTEXT";
        }
        return sasl == null ? "SSL" : "SASL_SSL";
    }
}
