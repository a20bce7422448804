package io.tributary.common.security.oauth;

import java.util.List;
import java.util.Map;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerExtensionsValidatorCallback;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The callbacks kafka-clients' OAUTHBEARER server mechanism asks while it runs the exchange (the
 * client's first message, {@code n,,\x01auth=Bearer <token>\x01\x01}, RFC 7628): the token is
 * checked by a {@link JwtValidator}; a refused one is answered with Kafka's error status {@code
 * invalid_token}, which the mechanism sends as the server's challenge {@code
 * {"status":"invalid_token"}} before failing the exchange. SASL extensions the client sends are
 * all accepted, as Kafka's validator does. One per listener; thread-safe.
 */
public final class OAuthBearerValidation implements AuthenticateCallbackHandler {

    private static final Logger log = LoggerFactory.getLogger(OAuthBearerValidation.class);

    /** Kafka's error status for a refused token (RFC 6750 section 3.1). */
    public static final String INVALID_TOKEN = "invalid_token";

    private final JwtValidator validator;

    public OAuthBearerValidation(JwtValidator validator) {
        this.validator = validator;
    }

    @Override
    public void configure(Map<String, ?> configs, String saslMechanism, List<AppConfigurationEntry> jaasConfigEntries) {
        // Configured through its constructor.
    }

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
        for (Callback callback : callbacks) {
            if (callback instanceof OAuthBearerValidatorCallback token) {
                try {
                    token.token(validator.validate(token.tokenValue()));
                } catch (InvalidTokenException e) {
                    log.info("Refusing an OAUTHBEARER token: {}", e.getMessage());
                    token.error(INVALID_TOKEN, null, null);
                }
            } else if (callback instanceof OAuthBearerExtensionsValidatorCallback extensions) {
                extensions.inputExtensions().map().keySet().forEach(extensions::valid);
            } else {
                throw new UnsupportedCallbackException(callback);
            }
        }
    }

    @Override
    public void close() {
        // Nothing held.
    }
}
