package io.tributary.broker.app;

import io.tributary.common.listeners.KafkaListenersConfig;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The broker's named Kafka listeners, with Kafka's own setting names under {@code
 * tributary.broker.}: {@code listeners}, {@code advertised.listeners}, {@code
 * listener.security.protocol.map}, {@code ssl.*}, {@code sasl.*}, {@code connections.max.reauth.ms}
 * and {@code listener.name.<name>.<key>} (see {@link KafkaListenersConfig} for what each means and
 * the broker's README for the table). Spring binds them as maps of Kafka keys, handed to {@link
 * KafkaListenersConfig} whole, which refuses unknown keys.
 *
 * @param listeners {@code NAME://host:port,...}; empty (the default): no named listener, the
 *     broker has its internal listener and the optional external one only
 * @param advertised {@code advertised.listeners} (key {@code listeners})
 * @param listener {@code listener.security.protocol.map} and {@code listener.name.*} (keys
 *     without {@code listener.})
 * @param ssl the global {@code ssl.*} settings (keys without {@code ssl.})
 * @param sasl the global {@code sasl.*} settings (keys without {@code sasl.})
 * @param connections the global {@code connections.max.reauth.ms} (key {@code max.reauth.ms})
 * @param securityFileCheckInterval how often at most the TLS files and PLAIN users files are
 *     checked for changes (at a new connection, and a PLAIN login); not one of Kafka's settings
 */
@Validated
@ConfigurationProperties("tributary.broker")
public record NamedListenersProperties(
        @DefaultValue("") String listeners,
        Map<String, String> advertised,
        Map<String, String> listener,
        Map<String, String> ssl,
        Map<String, String> sasl,
        Map<String, String> connections,
        @DefaultValue("30s") @NotNull Duration securityFileCheckInterval) {

    /** How the keys are spelled in this service's configuration. */
    static final String PREFIX = "tributary.broker.";

    public NamedListenersProperties {
        advertised = advertised == null ? Map.of() : Map.copyOf(advertised);
        listener = listener == null ? Map.of() : Map.copyOf(listener);
        ssl = ssl == null ? Map.of() : Map.copyOf(ssl);
        sasl = sasl == null ? Map.of() : Map.copyOf(sasl);
        connections = connections == null ? Map.of() : Map.copyOf(connections);
        if (securityFileCheckInterval != null && securityFileCheckInterval.isNegative()) {
            throw new IllegalArgumentException(
                    PREFIX + "security-file-check-interval must not be negative, got " + securityFileCheckInterval);
        }
    }

    /** The settings under their Kafka names ({@code ssl.keystore.location}...). */
    Map<String, String> kafkaConfig() {
        Map<String, String> config = new HashMap<>();
        if (listeners != null && !listeners.isBlank()) {
            config.put(KafkaListenersConfig.LISTENERS, listeners);
        }
        advertised.forEach((k, v) -> config.put("advertised." + k, v));
        listener.forEach((k, v) -> config.put("listener." + k, v));
        ssl.forEach((k, v) -> config.put("ssl." + k, v));
        sasl.forEach((k, v) -> config.put("sasl." + k, v));
        connections.forEach((k, v) -> config.put("connections." + k, v));
        return config;
    }
}
