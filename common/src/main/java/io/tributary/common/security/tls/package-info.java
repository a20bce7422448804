/**
 * TLS on a Kafka-protocol listener, as Kafka's SSL and SASL_SSL listeners: {@link
 * io.tributary.common.security.tls.TlsSettings} names the key store (the listener's certificate and
 * key: PKCS12, JKS or PEM files read by {@link io.tributary.common.security.tls.PemFiles}), the trust
 * store (the authorities whose client certificates it accepts), whether clients must present one
 * ({@code ssl.client.auth}), the protocol versions (TLS 1.3 and 1.2 only) and how a client
 * certificate's subject becomes a principal ({@link
 * io.tributary.common.security.tls.SslPrincipalMapper}, Kafka's {@code
 * ssl.principal.mapping.rules}). {@link io.tributary.common.security.tls.TlsContextSource} holds
 * the context a listener's new connections use and reloads it when the files' content changes;
 * open connections keep the context they started with. {@link
 * io.tributary.common.security.tls.TlsClient} is the other side, for Tributary's own clients of
 * internal listeners: a trust store, the protocol versions, and the server's host name checked
 * against its certificate (Kafka's {@code ssl.endpoint.identification.algorithm=https}). Plain
 * Java, no Spring.
 */
package io.tributary.common.security.tls;
