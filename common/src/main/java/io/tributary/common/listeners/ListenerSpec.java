package io.tributary.common.listeners;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One named listener as the Kafka-style settings describe it ({@link KafkaListenersConfig}).
 *
 * @param bind the name and the address to bind ({@code listeners})
 * @param protocol its security protocol ({@code listener.security.protocol.map})
 * @param advertised the address clients are told ({@code advertised.listeners}); empty: the bind
 *     address, or, when {@code registered} is false, none
 * @param registered whether the service registers (advertises) this listener: always when {@code
 *     advertised.listeners} is unset; when it is set, only the listeners it names (Kafka's rule: a
 *     listener left out of a set {@code advertised.listeners} accepts connections, but no broker is
 *     told to its clients)
 * @param settings this listener's {@code ssl.*} and {@code sasl.*} settings: the global ones,
 *     each replaced by its {@code listener.name.<name>.} form when that is set
 */
public record ListenerSpec(
        ListenerAddress bind,
        SecurityProtocol protocol,
        Optional<ListenerAddress> advertised,
        boolean registered,
        Map<String, String> settings) {

    public ListenerSpec {
        Objects.requireNonNull(bind, "bind");
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(advertised, "advertised");
        if (advertised.isPresent() && !registered) {
            throw new IllegalArgumentException("an advertised listener is registered");
        }
        settings = Map.copyOf(settings);
    }

    /** The listener's name. */
    public String name() {
        return bind.name();
    }

    /** A setting of this listener, or empty when neither the listener nor the global setting has it. */
    public Optional<String> setting(String key) {
        return Optional.ofNullable(settings.get(key)).map(String::trim).filter(v -> !v.isEmpty());
    }
}
