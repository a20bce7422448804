package io.tributary.common.security.acl;

import java.util.Objects;

/**
 * Who a connection authenticated as, written {@code TYPE:NAME} as Kafka writes principals in ACLs
 * ({@code User:alice}); the type ends at the first colon, the name may hold more. {@link
 * #WILDCARD} ({@code User:*}) in an ACL matches every user.
 *
 * @param type the principal type, {@code User} for every authenticated client
 * @param name the name (the SASL user name, the certificate's mapped name, {@code ANONYMOUS})
 */
public record KafkaPrincipal(String type, String name) {

    /** Kafka's principal type for users. */
    public static final String USER_TYPE = "User";

    /** {@code User:*}: in an ACL, every user. */
    public static final KafkaPrincipal WILDCARD = new KafkaPrincipal(USER_TYPE, "*");

    /** {@code User:ANONYMOUS}: a connection on a listener without authentication. */
    public static final KafkaPrincipal ANONYMOUS = new KafkaPrincipal(USER_TYPE, "ANONYMOUS");

    public KafkaPrincipal {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(name, "name");
    }

    /**
     * Parses {@code TYPE:NAME}.
     *
     * @throws IllegalArgumentException with Kafka's message when there is no colon
     */
    public static KafkaPrincipal parse(String principal) {
        int colon = principal.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("Could not parse principal from `" + principal
                    + "` (no colon is present separating the principal type from the principal name)");
        }
        return new KafkaPrincipal(principal.substring(0, colon), principal.substring(colon + 1));
    }

    /** {@code User:alice}. */
    public static KafkaPrincipal user(String name) {
        return new KafkaPrincipal(USER_TYPE, name);
    }

    @Override
    public String toString() {
        return type + ":" + name;
    }
}
