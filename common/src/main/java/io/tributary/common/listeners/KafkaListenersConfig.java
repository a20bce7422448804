package io.tributary.common.listeners;

import io.tributary.common.security.sasl.SaslSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Named listeners from settings with Kafka's names, read as a Kafka broker reads its {@code
 * server.properties} (plain Java; the services bind the keys under their own prefix):
 *
 * <ul>
 *   <li>{@code listeners}: {@code NAME://host:port,...} ({@link ListenerAddress})
 *   <li>{@code advertised.listeners}: the addresses clients are told; unset, every listener
 *       advertises its bind address; set, only the listeners it names are advertised (as in
 *       Kafka: the others accept connections, but their clients are told of no broker)
 *   <li>{@code listener.security.protocol.map}: {@code NAME:PROTOCOL,...}; when unset, Kafka's
 *       default, each protocol's own name mapped to itself ({@code SASL_SSL:SASL_SSL}...); when
 *       set it replaces the default
 *   <li>the TLS and SASL settings of {@link #LISTENER_KEYS}, global ({@code ssl.keystore.location})
 *       or for one listener ({@code listener.name.<lower-case name>.ssl.keystore.location}), the
 *       listener's form replacing the global one key by key, as in Kafka; the keys of {@link
 *       #MECHANISM_KEYS} also for one mechanism of one listener ({@code
 *       listener.name.<name>.<lower-case mechanism>.<key>})
 * </ul>
 *
 * <p>Every mistake stops startup with a message naming the setting: an entry that is not {@code
 * NAME://host:port}, a name twice, two listeners on one port, a listener without a protocol, an
 * advertised name that is not a listener, an unknown key (Kafka's JAAS keys included: see {@link
 * #LISTENER_KEYS} for what replaces them).
 */
public final class KafkaListenersConfig {

    /** The key of the listeners. */
    public static final String LISTENERS = "listeners";

    public static final String ADVERTISED_LISTENERS = "advertised.listeners";
    public static final String PROTOCOL_MAP = "listener.security.protocol.map";
    private static final String PER_LISTENER = "listener.name.";

    /**
     * The settings of one SASL mechanism that a listener may also have as {@code
     * listener.name.<name>.<lower-case mechanism>.<key>} (Kafka's form, e.g. {@code
     * listener.name.client.oauthbearer.connections.max.reauth.ms}), replacing the listener's and
     * the global value for that mechanism.
     */
    public static final Set<String> MECHANISM_KEYS = Set.of(
            "connections.max.reauth.ms",
            "sasl.oauthbearer.jwks.endpoint.url",
            "sasl.oauthbearer.jwks.endpoint.refresh.ms",
            "sasl.oauthbearer.jwks.endpoint.retry.backoff.ms",
            "sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms",
            "sasl.oauthbearer.expected.issuer",
            "sasl.oauthbearer.expected.audience",
            "sasl.oauthbearer.allow.unverified.issuer",
            "sasl.oauthbearer.allow.unverified.audience",
            "sasl.oauthbearer.clock.skew.seconds",
            "sasl.oauthbearer.sub.claim.name",
            "sasl.oauthbearer.scope.claim.name");

    /**
     * The settings a listener may have, globally or per listener: Kafka's own (with {@link
     * #MECHANISM_KEYS}), and two of Tributary's ({@code ssl.keystore.certificate.chain.location},
     * {@code sasl.plain.users.file}).
     */
    public static final Set<String> LISTENER_KEYS = Stream.concat(
                    MECHANISM_KEYS.stream(),
                    Stream.of(
                            "ssl.keystore.location",
                            "ssl.keystore.type",
                            "ssl.keystore.password",
                            "ssl.key.password",
                            "ssl.keystore.certificate.chain.location",
                            "ssl.truststore.location",
                            "ssl.truststore.type",
                            "ssl.truststore.password",
                            "ssl.client.auth",
                            "ssl.enabled.protocols",
                            "ssl.principal.mapping.rules",
                            "sasl.enabled.mechanisms",
                            "sasl.plain.users.file"))
            .collect(Collectors.toUnmodifiableSet());

    private KafkaListenersConfig() {}

    /**
     * The listeners {@code config} describes, in {@code listeners} order; none when {@code
     * listeners} is unset.
     *
     * @param config Kafka-named keys and their values
     * @param prefix how the services spell the keys ({@code tributary.broker.}), for the messages
     * @throws IllegalArgumentException naming the setting at fault
     */
    public static List<ListenerSpec> parse(Map<String, String> config, String prefix) {
        return parse(config, prefix, Set.of());
    }

    /**
     * The listeners {@code config} describes, accepting {@code listener.name.<name>.} settings for
     * {@code ownListeners} too: listeners of the service that {@code listeners} does not name (they
     * have their own address settings) but that take their TLS and SASL settings from {@code config}
     * like a named one ({@link #ownListener}).
     *
     * @param ownListeners the upper-case names of those listeners (the service refuses a named
     *     listener of the same name)
     * @throws IllegalArgumentException naming the setting at fault
     */
    public static List<ListenerSpec> parse(Map<String, String> config, String prefix, Set<String> ownListeners) {
        Keys keys = Keys.split(config, prefix);
        List<ListenerAddress> binds = ListenerAddress.parseList(config.get(LISTENERS), prefix + LISTENERS);
        Map<String, ListenerAddress> advertised = new HashMap<>();
        for (ListenerAddress address :
                ListenerAddress.parseList(config.get(ADVERTISED_LISTENERS), prefix + ADVERTISED_LISTENERS)) {
            if (binds.stream().noneMatch(b -> b.name().equals(address.name()))) {
                throw new IllegalArgumentException("%s%s names %s, which is not in %s%s"
                        .formatted(prefix, ADVERTISED_LISTENERS, address.name(), prefix, LISTENERS));
            }
            advertised.put(address.name(), address);
        }
        Map<String, SecurityProtocol> protocols = protocolMap(config.get(PROTOCOL_MAP), prefix);
        Map<Integer, String> ports = new HashMap<>();
        List<ListenerSpec> specs = new ArrayList<>();
        for (ListenerAddress bind : binds) {
            if (bind.port() != 0) {
                String other = ports.putIfAbsent(bind.port(), bind.name());
                if (other != null) {
                    throw new IllegalArgumentException("%s%s: listeners %s and %s both use port %d"
                            .formatted(prefix, LISTENERS, other, bind.name(), bind.port()));
                }
            }
            SecurityProtocol protocol = protocols.get(bind.name());
            if (protocol == null) {
                throw new IllegalArgumentException(
                        ("%s%s: listener %s has no security protocol; add %s:<PROTOCOL> to" + " %s%s (one of %s)")
                                .formatted(
                                        prefix,
                                        LISTENERS,
                                        bind.name(),
                                        bind.name(),
                                        prefix,
                                        PROTOCOL_MAP,
                                        List.of(SecurityProtocol.values())));
            }
            boolean registered = advertised.isEmpty() || advertised.containsKey(bind.name());
            specs.add(new ListenerSpec(
                    bind,
                    protocol,
                    Optional.ofNullable(advertised.get(bind.name())),
                    registered,
                    keys.settingsOf(bind.name())));
        }
        List<String> names = new ArrayList<>(ownListeners);
        binds.forEach(b -> names.add(b.name()));
        checkPerListenerKeys(keys.perListener(), names, prefix);
        return specs;
    }

    /**
     * A listener of the service that {@code listeners} does not name, configured on its own (its
     * address and its security protocol are the service's own settings), with the TLS and SASL
     * settings of {@code config} as a named listener has them: the global ones, each replaced by its
     * {@code listener.name.<lower-case name>.} form. Registered, advertised at {@code bind} (the
     * service fills in what it advertises).
     *
     * @param protocolSetting the service's setting of its protocol, for the message when {@code
     *     listener.security.protocol.map} names this listener too (refused: two places would say
     *     what secures it)
     * @throws IllegalArgumentException naming the setting at fault
     */
    public static ListenerSpec ownListener(
            Map<String, String> config,
            ListenerAddress bind,
            SecurityProtocol protocol,
            String prefix,
            String protocolSetting) {
        Keys keys = Keys.split(config, prefix);
        String map = config.get(PROTOCOL_MAP);
        if (map != null && !map.isBlank() && protocolMap(map, prefix).containsKey(bind.name())) {
            throw new IllegalArgumentException("%s%s maps %s, whose protocol is %s; remove it from the map"
                    .formatted(prefix, PROTOCOL_MAP, bind.name(), protocolSetting));
        }
        return new ListenerSpec(bind, protocol, Optional.empty(), true, keys.settingsOf(bind.name()));
    }

    /** The listener settings of a config: the global ones and the {@code listener.name.*} ones. */
    private record Keys(Map<String, String> global, Map<String, String> perListener) {

        static Keys split(Map<String, String> config, String prefix) {
            Map<String, String> perListener = new HashMap<>();
            Map<String, String> global = new HashMap<>();
            for (Map.Entry<String, String> entry : config.entrySet()) {
                String key = entry.getKey();
                if (key.equals(LISTENERS) || key.equals(ADVERTISED_LISTENERS) || key.equals(PROTOCOL_MAP)) {
                    continue;
                }
                if (key.startsWith(PER_LISTENER)) {
                    perListener.put(key, entry.getValue());
                } else if (LISTENER_KEYS.contains(key)) {
                    global.put(key, entry.getValue());
                } else {
                    throw unknown(prefix, key);
                }
            }
            return new Keys(global, perListener);
        }

        /** The settings of listener {@code name}: the global ones, each replaced by the listener's own form. */
        Map<String, String> settingsOf(String name) {
            Map<String, String> settings = new HashMap<>(global);
            String own = PER_LISTENER + name.toLowerCase(Locale.ROOT) + ".";
            perListener.forEach((key, value) -> {
                if (key.toLowerCase(Locale.ROOT).startsWith(own)) {
                    settings.put(key.substring(own.length()), value);
                }
            });
            return settings;
        }
    }

    private static void checkPerListenerKeys(Map<String, String> perListener, List<String> names, String prefix) {
        for (String key : perListener.keySet()) {
            String rest = key.substring(PER_LISTENER.length());
            int dot = rest.indexOf('.');
            String name = dot < 0 ? rest : rest.substring(0, dot);
            if (names.stream().noneMatch(n -> n.equalsIgnoreCase(name))) {
                throw new IllegalArgumentException("%s%s: there is no listener %s in %s%s"
                        .formatted(prefix, key, name.toUpperCase(Locale.ROOT), prefix, LISTENERS));
            }
            if (dot < 0 || !isListenerKey(rest.substring(dot + 1))) {
                throw unknown(prefix, key);
            }
        }
    }

    /** A key of {@link #LISTENER_KEYS}, or one of {@link #MECHANISM_KEYS} after a mechanism's name. */
    private static boolean isListenerKey(String key) {
        if (LISTENER_KEYS.contains(key)) {
            return true;
        }
        int dot = key.indexOf('.');
        return dot > 0
                && SaslSettings.SUPPORTED.contains(key.substring(0, dot).toUpperCase(Locale.ROOT))
                && MECHANISM_KEYS.contains(key.substring(dot + 1));
    }

    /** Kafka's default map, or the configured one. */
    private static Map<String, SecurityProtocol> protocolMap(String value, String prefix) {
        Map<String, SecurityProtocol> map = new LinkedHashMap<>();
        if (value == null || value.isBlank()) {
            for (SecurityProtocol protocol : SecurityProtocol.values()) {
                map.put(protocol.name(), protocol);
            }
            return map;
        }
        for (String raw : value.split(",")) {
            String entry = raw.trim();
            if (entry.isEmpty()) {
                continue;
            }
            int colon = entry.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException(
                        "%s%s: '%s' is not NAME:PROTOCOL".formatted(prefix, PROTOCOL_MAP, entry));
            }
            String name = entry.substring(0, colon).trim().toUpperCase(Locale.ROOT);
            String protocolName = entry.substring(colon + 1).trim().toUpperCase(Locale.ROOT);
            SecurityProtocol protocol;
            try {
                protocol = SecurityProtocol.valueOf(protocolName);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("%s%s: '%s' is not a security protocol; one of %s"
                        .formatted(prefix, PROTOCOL_MAP, protocolName, List.of(SecurityProtocol.values())));
            }
            if (map.put(name, protocol) != null) {
                throw new IllegalArgumentException("%s%s maps %s twice".formatted(prefix, PROTOCOL_MAP, name));
            }
        }
        return map;
    }

    private static IllegalArgumentException unknown(String prefix, String key) {
        String hint = key.endsWith("sasl.jaas.config")
                ? " (JAAS is not read: PLAIN users come from sasl.plain.users.file, SCRAM users from the cluster)"
                : "";
        return new IllegalArgumentException(("%s%s is not a listener setting%s; known: %s, %s, %s and, globally or as"
                        + " listener.name.<name>.<key>, %s (those of %s also as"
                        + " listener.name.<name>.<mechanism>.<key>)")
                .formatted(
                        prefix,
                        key,
                        hint,
                        LISTENERS,
                        ADVERTISED_LISTENERS,
                        PROTOCOL_MAP,
                        new TreeSet<>(LISTENER_KEYS),
                        new TreeSet<>(MECHANISM_KEYS)));
    }
}
