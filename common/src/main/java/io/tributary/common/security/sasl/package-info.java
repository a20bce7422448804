/**
 * SASL authentication on a Kafka-protocol listener, as Kafka's SASL_PLAINTEXT and SASL_SSL
 * listeners do it (KIP-152 framing): a client sends SaslHandshake naming a mechanism, then the
 * mechanism's tokens inside SaslAuthenticate requests until the exchange completes; before that a
 * connection may only ask ApiVersions, and any other request closes it. {@link
 * io.tributary.common.security.sasl.SaslSession} runs one connection's exchange with the mechanism
 * implementations kafka-clients ships (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER: the same
 * code a Kafka broker runs), asking a {@link io.tributary.common.security.sasl.CredentialLookup} for
 * the credentials ({@link io.tributary.common.security.sasl.PlainUsersFile}: PLAIN users from a
 * properties file, re-read when it changes) and {@code security.oauth} for OAUTHBEARER tokens. A
 * session may expire ({@code connections.max.reauth.ms}, a token's expiry: KIP-368); the client
 * then re-authenticates on the same connection, or the connection is closed at its next request.
 * Plain Java, no Spring.
 */
package io.tributary.common.security.sasl;
