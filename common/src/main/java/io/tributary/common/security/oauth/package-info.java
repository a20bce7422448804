/**
 * OAUTHBEARER on a SASL listener with the broker-side JWT validation of Kafka's KIP-768: a client
 * sends a JWT its identity provider signed; {@link io.tributary.common.security.oauth.JwtValidator}
 * checks its signature with a key of the provider's JSON Web Key Set ({@link
 * io.tributary.common.security.oauth.JwksSource}, {@code sasl.oauthbearer.jwks.endpoint.url}: a
 * file or an http(s) endpoint, refreshed) and its claims (expiry and not-before with a clock skew,
 * issuer, audience, subject); the subject becomes the principal {@code User:<sub>} and the expiry
 * bounds the session (KIP-368). {@link io.tributary.common.security.oauth.OAuthBearerValidation}
 * plugs the validator into kafka-clients' own OAUTHBEARER server mechanism, which frames the
 * exchange. Signatures are verified with the JDK; JSON is read with Jackson. Plain Java, no Spring.
 */
package io.tributary.common.security.oauth;
