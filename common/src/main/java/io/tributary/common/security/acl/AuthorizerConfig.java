package io.tributary.common.security.acl;

import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A service's authorizer settings under Kafka's names, as a broker's {@code server.properties} has
 * them (the service puts its own prefix in front, {@code tributary.broker.}):
 *
 * <ul>
 *   <li>{@value #ENABLED} {@code true}, or {@value #CLASS_NAME} Kafka's {@value #STANDARD_AUTHORIZER}
 *       (the one authorizer Tributary has; any other class is refused): the ACL authorizer is on.
 *       Neither set (the default): no authorizer, every request is allowed and the ACL APIs answer
 *       {@code SECURITY_DISABLED}, as Kafka without {@code authorizer.class.name};
 *   <li>{@value #SUPER_USERS}: principals allowed everything, separated by semicolons ({@code
 *       User:admin;User:ANONYMOUS}), each {@code TYPE:NAME};
 *   <li>{@value #ALLOW_EVERYONE}: whether a resource no ACL names is open to everyone ({@code false}
 *       by default, as Kafka).
 * </ul>
 *
 * <p>Thread-safety: stateless.
 */
public final class AuthorizerConfig {

    /** The switch (not one of Kafka's names). */
    public static final String ENABLED = "authorizer.enabled";

    /** Kafka's switch. */
    public static final String CLASS_NAME = "authorizer.class.name";

    /** Kafka's KRaft authorizer, whose semantics {@link AclAuthorizer} has. */
    public static final String STANDARD_AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";

    public static final String SUPER_USERS = "super.users";

    public static final String ALLOW_EVERYONE = "allow.everyone.if.no.acl.found";

    private AuthorizerConfig() {}

    /**
     * The authorizer's settings when it is on, empty when it is off.
     *
     * @param config the settings by their keys above (absent ones take their defaults)
     * @param prefix how the service spells the keys, for messages ({@code tributary.broker.})
     * @throws IllegalArgumentException for an unknown authorizer class, a principal without a colon,
     *     a flag that is not {@code true} or {@code false}
     */
    public static Optional<AclAuthorizer.Settings> parse(Map<String, String> config, String prefix) {
        boolean enabled = flag(config, ENABLED, prefix);
        String className = config.getOrDefault(CLASS_NAME, "").trim();
        if (!className.isEmpty()) {
            if (!className.equals(STANDARD_AUTHORIZER)) {
                throw new IllegalArgumentException("%s%s: only %s is supported (Tributary's ACL authorizer has its"
                                .formatted(prefix, CLASS_NAME, STANDARD_AUTHORIZER)
                        + " semantics), got " + className);
            }
            enabled = true;
        }
        Set<KafkaPrincipal> superUsers = new HashSet<>();
        for (String principal : config.getOrDefault(SUPER_USERS, "").split(";")) {
            if (!principal.isBlank()) {
                try {
                    superUsers.add(KafkaPrincipal.parse(principal.trim()));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(prefix + SUPER_USERS + ": " + e.getMessage(), e);
                }
            }
        }
        boolean allowEveryone = flag(config, ALLOW_EVERYONE, prefix);
        return enabled ? Optional.of(new AclAuthorizer.Settings(superUsers, allowEveryone)) : Optional.empty();
    }

    private static boolean flag(Map<String, String> config, String key, String prefix) {
        String value = config.getOrDefault(key, "false").trim().toLowerCase(Locale.ROOT);
        return switch (value) {
            case "true" -> true;
            case "false", "" -> false;
            default -> throw new IllegalArgumentException(prefix + key + " must be true or false, got " + value);
        };
    }
}
