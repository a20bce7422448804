package io.tributary.common.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A kafka-clients OAUTHBEARER login callback handler ({@code sasl.login.callback.handler.class})
 * for tests: the token is the content of the file named by the JAAS option {@code tokenFile}, read
 * at each login, so a test changes what a client logs in with by rewriting the file. The client's
 * view of the token (principal, lifetime) comes from its unverified claims. {@link #clientConfig}
 * gives the settings.
 */
public final class FileTokenLogin implements AuthenticateCallbackHandler {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private Path tokenFile;

    /** The client settings for OAUTHBEARER with the token in {@code tokenFile}. */
    public static Map<String, String> clientConfig(Path tokenFile) {
        return Map.of(
                "sasl.mechanism",
                "OAUTHBEARER",
                "sasl.login.callback.handler.class",
                FileTokenLogin.class.getName(),
                "sasl.jaas.config",
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required tokenFile=\""
                        + tokenFile.toAbsolutePath() + "\";");
    }

    @Override
    public void configure(Map<String, ?> configs, String saslMechanism, List<AppConfigurationEntry> jaasConfigEntries) {
        Object file = jaasConfigEntries.get(0).getOptions().get("tokenFile");
        if (file == null) {
            throw new IllegalArgumentException("the JAAS config has no tokenFile option");
        }
        tokenFile = Path.of(file.toString());
    }

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
        for (Callback callback : callbacks) {
            if (callback instanceof OAuthBearerTokenCallback token) {
                token.token(read());
            } else {
                throw new UnsupportedCallbackException(callback);
            }
        }
    }

    private OAuthBearerToken read() {
        String value;
        try {
            value = Files.readString(tokenFile, StandardCharsets.US_ASCII).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String[] parts = value.split("\\.");
        JsonNode claims = JSON.readTree(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8));
        String sub = claims.path("sub").asString("");
        long exp = claims.path("exp").asLong(0) * 1000;
        long iat = claims.path("iat").asLong(0) * 1000;
        return new OAuthBearerToken() {
            @Override
            public String value() {
                return value;
            }

            @Override
            public Set<String> scope() {
                return Set.of();
            }

            @Override
            public long lifetimeMs() {
                return exp;
            }

            @Override
            public String principalName() {
                return sub;
            }

            @Override
            public Long startTimeMs() {
                return iat;
            }
        };
    }

    @Override
    public void close() {
        // Nothing held.
    }
}
