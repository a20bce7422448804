package io.tributary.common.listeners;

import io.tributary.common.security.oauth.JwksSource;
import io.tributary.common.security.oauth.JwtValidationSettings;
import io.tributary.common.security.oauth.JwtValidator;
import io.tributary.common.security.sasl.SaslSettings;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Reads a listener's OAUTHBEARER and re-authentication settings with Kafka's names, each looked up
 * first for the mechanism ({@code listener.name.<name>.<mechanism>.<key>}), then for the listener,
 * then globally ({@link KafkaListenersConfig#MECHANISM_KEYS}). As Kafka 4.4's broker validator, a
 * listener with OAUTHBEARER needs {@code sasl.oauthbearer.jwks.endpoint.url}, and {@code
 * sasl.oauthbearer.expected.issuer} and {@code sasl.oauthbearer.expected.audience} unless {@code
 * sasl.oauthbearer.allow.unverified.issuer} / {@code .audience} is {@code true}. Plain Java.
 */
final class OAuthBearerListenerSettings {

    private static final String OAUTH = "sasl.oauthbearer.";

    private OAuthBearerListenerSettings() {}

    /**
     * The validator of {@code spec}'s OAUTHBEARER tokens; its JWKS is fetched here.
     *
     * @throws IllegalArgumentException naming the setting that is missing or wrong
     */
    static JwtValidator validator(ListenerSpec spec, InstantSource clock, String prefix) {
        String mechanism = SaslSettings.OAUTHBEARER;
        String url = setting(spec, mechanism, OAUTH + "jwks.endpoint.url")
                .orElseThrow(() -> new IllegalArgumentException(
                        ("listener %s enables OAUTHBEARER: set %s%sjwks.endpoint.url (a file: or https: URL of the"
                                        + " identity provider's JSON Web Key Set)")
                                .formatted(spec.name(), prefix, OAUTH)));
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("listener %s: %s%sjwks.endpoint.url is not a URL: %s"
                    .formatted(spec.name(), prefix, OAUTH, e.getMessage()));
        }
        Optional<String> issuer = setting(spec, mechanism, OAUTH + "expected.issuer");
        Set<String> audiences = setting(spec, mechanism, OAUTH + "expected.audience")
                .map(v -> Arrays.stream(v.split(","))
                        .map(String::trim)
                        .filter(s -> !s.isEmpty())
                        .collect(Collectors.toUnmodifiableSet()))
                .orElse(Set.of());
        if (issuer.isEmpty() && !flag(spec, mechanism, OAUTH + "allow.unverified.issuer", prefix)) {
            throw new IllegalArgumentException(("listener %s enables OAUTHBEARER: set %s%sexpected.issuer to the"
                            + " issuer of the tokens, or %s%sallow.unverified.issuer=true to accept any")
                    .formatted(spec.name(), prefix, OAUTH, prefix, OAUTH));
        }
        if (audiences.isEmpty() && !flag(spec, mechanism, OAUTH + "allow.unverified.audience", prefix)) {
            throw new IllegalArgumentException(("listener %s enables OAUTHBEARER: set %s%sexpected.audience to the"
                            + " audience(s) naming this cluster, or %s%sallow.unverified.audience=true to accept any")
                    .formatted(spec.name(), prefix, OAUTH, prefix, OAUTH));
        }
        try {
            JwksSource.Settings jwks = new JwksSource.Settings(
                    uri,
                    millis(
                            spec,
                            mechanism,
                            OAUTH + "jwks.endpoint.refresh.ms",
                            JwksSource.Settings.DEFAULT_REFRESH,
                            prefix),
                    millis(
                            spec,
                            mechanism,
                            OAUTH + "jwks.endpoint.retry.backoff.ms",
                            JwksSource.Settings.DEFAULT_RETRY_BACKOFF,
                            prefix),
                    millis(
                            spec,
                            mechanism,
                            OAUTH + "jwks.endpoint.retry.backoff.max.ms",
                            JwksSource.Settings.DEFAULT_RETRY_BACKOFF_MAX,
                            prefix),
                    JwksSource.Settings.DEFAULT_UNKNOWN_KEY_REFRESH,
                    JwksSource.Settings.DEFAULT_FETCH_TIMEOUT,
                    JwksSource.Settings.DEFAULT_MAX_BYTES);
            JwtValidationSettings validation = new JwtValidationSettings(
                    issuer,
                    audiences,
                    Duration.ofSeconds(number(
                            spec,
                            mechanism,
                            OAUTH + "clock.skew.seconds",
                            JwtValidationSettings.DEFAULT_CLOCK_SKEW.toSeconds(),
                            prefix)),
                    setting(spec, mechanism, OAUTH + "sub.claim.name").orElse(JwtValidationSettings.DEFAULT_SUB_CLAIM),
                    setting(spec, mechanism, OAUTH + "scope.claim.name")
                            .orElse(JwtValidationSettings.DEFAULT_SCOPE_CLAIM));
            return new JwtValidator(validation, new JwksSource(jwks, clock), clock);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("listener " + spec.name() + ": " + e.getMessage(), e);
        }
    }

    /** Kafka's {@code connections.max.reauth.ms} of {@code mechanism} on {@code spec}; zero when unset. */
    static Duration maxReauth(ListenerSpec spec, String mechanism, String prefix) {
        return millis(spec, mechanism, "connections.max.reauth.ms", Duration.ZERO, prefix);
    }

    /** The mechanism's own value, else the listener's (or the global one). */
    private static Optional<String> setting(ListenerSpec spec, String mechanism, String key) {
        return spec.setting(mechanism.toLowerCase(Locale.ROOT) + "." + key).or(() -> spec.setting(key));
    }

    private static Duration millis(ListenerSpec spec, String mechanism, String key, Duration absent, String prefix) {
        return Duration.ofMillis(number(spec, mechanism, key, absent.toMillis(), prefix));
    }

    private static long number(ListenerSpec spec, String mechanism, String key, long absent, String prefix) {
        Optional<String> value = setting(spec, mechanism, key);
        if (value.isEmpty()) {
            return absent;
        }
        try {
            long parsed = Long.parseLong(value.get());
            if (parsed >= 0) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(
                "listener %s: %s%s is a number >= 0, got '%s'".formatted(spec.name(), prefix, key, value.get()));
    }

    private static boolean flag(ListenerSpec spec, String mechanism, String key, String prefix) {
        String value = setting(spec, mechanism, key).orElse("false").toLowerCase(Locale.ROOT);
        if (!value.equals("true") && !value.equals("false")) {
            throw new IllegalArgumentException(
                    "listener %s: %s%s is true or false, got '%s'".formatted(spec.name(), prefix, key, value));
        }
        return value.equals("true");
    }
}
