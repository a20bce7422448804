package io.tributary.gateway.app;

import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Which web pages on other origins may call the API from a browser ({@code
 * tributary.gateway.cors.*}): {@code EventSource}, {@code fetch} and {@code XMLHttpRequest} from those
 * origins. No credentials are ever allowed (no cookies; the API uses none).
 *
 * @param allowedOrigins origins ({@code scheme://host[:port]}, exactly as the browser sends {@code
 *     Origin}) allowed to call {@code /v1/**}; {@code *} allows every origin; empty (the default)
 *     answers no cross-origin request, so browsers keep pages on other origins out
 * @param maxAge how long a browser may cache a preflight answer
 */
@Validated
@ConfigurationProperties("tributary.gateway.cors")
public record CorsProperties(
        @DefaultValue("") List<String> allowedOrigins,
        @DefaultValue("1h") @NotNull Duration maxAge) {

    public CorsProperties {
        allowedOrigins = allowedOrigins == null
                ? List.of()
                : allowedOrigins.stream()
                        .map(String::strip)
                        .filter(o -> !o.isEmpty())
                        .toList();
        for (String o : allowedOrigins) {
            if (!o.equals("*") && !o.matches("[A-Za-z][A-Za-z0-9+.-]*://[^/?#\\s]+")) {
                throw new IllegalArgumentException(
                        "tributary.gateway.cors.allowed-origins: '%s' is not an origin (scheme://host[:port]) or *"
                                .formatted(o));
            }
        }
        if (maxAge != null && maxAge.isNegative()) {
            throw new IllegalArgumentException("tributary.gateway.cors.max-age must not be negative");
        }
    }
}
