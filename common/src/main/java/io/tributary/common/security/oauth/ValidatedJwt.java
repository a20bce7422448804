package io.tributary.common.security.oauth;

import java.util.Set;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;

/**
 * A token that passed {@link JwtValidator}: what kafka-clients' OAUTHBEARER server mechanism needs
 * of it (the principal, and the expiry that bounds the session, KIP-368).
 *
 * @param value the compact JWT as the client sent it
 * @param scope the scopes it grants (its scope claim)
 * @param lifetimeMs its {@code exp}, in milliseconds since the epoch
 * @param principalName its subject (its sub claim)
 * @param startTimeMs its {@code iat}, in milliseconds since the epoch
 */
public record ValidatedJwt(String value, Set<String> scope, long lifetimeMs, String principalName, Long startTimeMs)
        implements OAuthBearerToken {

    public ValidatedJwt {
        scope = Set.copyOf(scope);
    }

    @Override
    public String toString() {
        // Never the token itself: it is a bearer credential.
        return "ValidatedJwt[sub=" + principalName + ", exp=" + lifetimeMs + "]";
    }
}
