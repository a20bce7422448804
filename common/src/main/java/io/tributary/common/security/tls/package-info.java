/**
 * TLS on a Kafka-protocol listener, as Kafka's SSL and SASL_SSL listeners: {@link
 * io.tributary.common.security.tls.TlsSettings} names the key store (the listener's certificate and
 * key), the trust store (the authorities whose client certificates it accepts), whether clients must
 * present one ({@code ssl.client.auth}) and the protocol versions (TLS 1.3 and 1.2 only). Plain Java,
 * no Spring.
 */
package io.tributary.common.security.tls;
