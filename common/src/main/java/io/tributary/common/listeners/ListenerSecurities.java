package io.tributary.common.listeners;

import io.tributary.common.protocol.ListenerSecurity;
import io.tributary.common.security.oauth.JwtValidator;
import io.tributary.common.security.sasl.CredentialLookup;
import io.tributary.common.security.sasl.PlainUsersFile;
import io.tributary.common.security.sasl.SaslSettings;
import io.tributary.common.security.tls.SslPrincipalMapper;
import io.tributary.common.security.tls.TlsSettings;
import io.tributary.common.security.tls.TlsSettings.ClientAuth;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Turns a {@link ListenerSpec}'s settings into the {@link ListenerSecurity} the protocol server
 * runs with, with Kafka's defaults ({@code ssl.keystore.type} and {@code ssl.truststore.type}
 * {@code JKS}, which reads PKCS12 files too; {@code ssl.client.auth} {@code none}; {@code
 * ssl.enabled.protocols} {@code TLSv1.3,TLSv1.2}; {@code ssl.principal.mapping.rules} {@code
 * DEFAULT}). Kafka's default {@code sasl.enabled.mechanisms} is GSSAPI, which Tributary does not
 * offer, so a SASL listener must name its mechanisms. OAUTHBEARER's token validation and each
 * mechanism's {@code connections.max.reauth.ms} are read by {@link OAuthBearerListenerSettings}.
 * Plain Java.
 */
public final class ListenerSecurities {

    private ListenerSecurities() {}

    /**
     * The security of {@code spec}.
     *
     * @param users where SCRAM credentials come from, and PLAIN passwords when the listener has no
     *     {@code sasl.plain.users.file}
     * @param fileCheckInterval how often at most the TLS files and the PLAIN users file are checked
     *     for changes
     * @param prefix how the service spells the keys, for the messages
     * @throws IllegalArgumentException naming the setting that is missing or wrong, or the file that
     *     cannot be read
     */
    public static ListenerSecurity of(
            ListenerSpec spec, CredentialLookup users, Duration fileCheckInterval, InstantSource clock, String prefix) {
        TlsSettings tls = spec.protocol().usesTls() ? tls(spec, prefix) : null;
        SaslSettings sasl = spec.protocol().usesSasl() ? sasl(spec, users, fileCheckInterval, clock, prefix) : null;
        return new ListenerSecurity(tls, sasl, fileCheckInterval);
    }

    /**
     * The TLS settings of {@code spec}'s {@code ssl.*} settings, with Kafka's defaults.
     *
     * @throws IllegalArgumentException naming the setting that is missing or wrong
     */
    public static TlsSettings tls(ListenerSpec spec, String prefix) {
        String keyStore = spec.setting("ssl.keystore.location")
                .orElseThrow(() -> new IllegalArgumentException(("listener %s is %s: set %sssl.keystore.location (or"
                                + " %slistener.name.%s.ssl.keystore.location)")
                        .formatted(
                                spec.name(),
                                spec.protocol(),
                                prefix,
                                prefix,
                                spec.name().toLowerCase(Locale.ROOT))));
        String keyStoreType = type(spec, "ssl.keystore.type", prefix);
        String trustStoreType = type(spec, "ssl.truststore.type", prefix);
        ClientAuth clientAuth;
        String auth = spec.setting("ssl.client.auth").orElse("none").toUpperCase(Locale.ROOT);
        try {
            clientAuth = ClientAuth.valueOf(auth);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("listener %s: ssl.client.auth is none, requested or required, got '%s'"
                    .formatted(spec.name(), auth.toLowerCase(Locale.ROOT)));
        }
        List<String> protocols = spec.setting("ssl.enabled.protocols")
                .map(ListenerSecurities::list)
                .orElse(TlsSettings.DEFAULT_PROTOCOLS);
        SslPrincipalMapper mapper = spec.setting("ssl.principal.mapping.rules")
                .map(SslPrincipalMapper::parse)
                .orElse(SslPrincipalMapper.DEFAULT);
        String chain = spec.setting("ssl.keystore.certificate.chain.location").orElse(null);
        if (chain != null && !keyStoreType.equals(TlsSettings.PEM)) {
            throw new IllegalArgumentException(
                    "listener %s: ssl.keystore.certificate.chain.location is read with ssl.keystore.type=PEM only"
                            .formatted(spec.name()));
        }
        try {
            return new TlsSettings(
                    Path.of(keyStore),
                    keyStoreType,
                    password(spec, "ssl.keystore.password"),
                    spec.setting("ssl.key.password").map(String::toCharArray).orElse(null),
                    spec.setting("ssl.truststore.location").map(Path::of).orElse(null),
                    trustStoreType,
                    spec.setting("ssl.truststore.password")
                            .map(String::toCharArray)
                            .orElse(null),
                    clientAuth,
                    protocols,
                    chain == null ? null : Path.of(chain),
                    mapper);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("listener " + spec.name() + ": " + e.getMessage(), e);
        }
    }

    private static String type(ListenerSpec spec, String key, String prefix) {
        String type = spec.setting(key).orElse("JKS").toUpperCase(Locale.ROOT);
        if (!TlsSettings.STORE_TYPES.contains(type)) {
            throw new IllegalArgumentException(
                    "listener %s: %s%s is JKS, PKCS12 or PEM, got '%s'".formatted(spec.name(), prefix, key, type));
        }
        return type;
    }

    private static char[] password(ListenerSpec spec, String key) {
        return spec.setting(key).map(String::toCharArray).orElse(new char[0]);
    }

    private static SaslSettings sasl(
            ListenerSpec spec, CredentialLookup users, Duration fileCheckInterval, InstantSource clock, String prefix) {
        List<String> mechanisms = spec.setting("sasl.enabled.mechanisms")
                .map(ListenerSecurities::list)
                .orElseThrow(() -> new IllegalArgumentException(("listener %s is %s: set %ssasl.enabled.mechanisms"
                                + " (Kafka's default, GSSAPI, is not offered; one or more of %s)")
                        .formatted(spec.name(), spec.protocol(), prefix, SaslSettings.SUPPORTED)));
        CredentialLookup credentials = spec.setting("sasl.plain.users.file")
                .<CredentialLookup>map(file ->
                        CredentialLookup.split(new PlainUsersFile(Path.of(file), fileCheckInterval, clock), users))
                .orElse(users);
        for (String mechanism : mechanisms) {
            if (!SaslSettings.SUPPORTED.contains(mechanism)) {
                throw new IllegalArgumentException(
                        "listener %s: %ssasl.enabled.mechanisms: SASL mechanism %s is not supported; supported: %s"
                                .formatted(spec.name(), prefix, mechanism, SaslSettings.SUPPORTED));
            }
        }
        Optional<JwtValidator> oauthBearer = mechanisms.contains(SaslSettings.OAUTHBEARER)
                ? Optional.of(OAuthBearerListenerSettings.validator(spec, clock, prefix))
                : Optional.empty();
        Map<String, Duration> maxReauth = new HashMap<>();
        for (String mechanism : mechanisms) {
            maxReauth.put(mechanism, OAuthBearerListenerSettings.maxReauth(spec, mechanism, prefix));
        }
        try {
            return new SaslSettings(mechanisms, credentials, oauthBearer, maxReauth);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "listener %s: %ssasl.enabled.mechanisms: %s".formatted(spec.name(), prefix, e.getMessage()), e);
        }
    }

    private static List<String> list(String value) {
        return Arrays.stream(value.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .toList();
    }
}
