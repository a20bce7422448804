package io.tributary.common.security.internal;

import io.tributary.common.security.acl.KafkaPrincipal;
import java.util.OptionalInt;

/**
 * The SCRAM users Tributary's own processes log in as on each other's Kafka listeners, and the
 * rules that keep them apart from the clients' users.
 *
 * <ul>
 *   <li>{@code tributary-broker-<id>} (the id in decimal, no leading zeros): broker {@code id},
 *       when it fetches as a follower from a leader and forwards group requests to the
 *       coordinators ({@link BrokerKey#kafkaLogin()}).
 *   <li>{@code tributary-coordinator}: a coordinator, when it asks brokers for log end offsets
 *       (the consumer lag metric; {@link ClusterSecret#coordinatorLogin()}).
 * </ul>
 *
 * <p>Their credentials are written by the coordinators (which hold the cluster secret) and never
 * by a client: {@link #reserved} names are refused by AlterUserScramCredentials and by the
 * bootstrap users. An internal principal is allowed everything by the ACL checks ({@link
 * #isInternal}, as Kafka's brokers are {@code super.users}), except that a broker fetches as a
 * follower only with its own replica id ({@link #mayFetchAsReplica}).
 *
 * <p>Thread-safety: stateless.
 */
public final class InternalUsers {

    /** The prefix of every broker's user name; reserved. */
    public static final String BROKER_PREFIX = "tributary-broker-";

    /** The coordinators' user name; reserved. */
    public static final String COORDINATOR = "tributary-coordinator";

    private InternalUsers() {}

    /** Broker {@code brokerId}'s user name. */
    public static String broker(int brokerId) {
        if (brokerId < 0) {
            throw new IllegalArgumentException("a broker id is 0 or more, got " + brokerId);
        }
        return BROKER_PREFIX + brokerId;
    }

    /** Whether a client may not create, change or delete credentials of {@code user}. */
    public static boolean reserved(String user) {
        return user.startsWith(BROKER_PREFIX) || user.equals(COORDINATOR);
    }

    /**
     * The broker id of a broker's principal ({@code User:tributary-broker-<id>}), or empty for any
     * other principal (a name whose suffix is not an id as {@link #broker} writes it included).
     */
    public static OptionalInt brokerId(KafkaPrincipal principal) {
        if (!principal.type().equals(KafkaPrincipal.USER_TYPE)
                || !principal.name().startsWith(BROKER_PREFIX)) {
            return OptionalInt.empty();
        }
        String digits = principal.name().substring(BROKER_PREFIX.length());
        if (digits.isEmpty() || digits.length() > 10 || (digits.length() > 1 && digits.charAt(0) == '0')) {
            return OptionalInt.empty();
        }
        for (int i = 0; i < digits.length(); i++) {
            if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
                return OptionalInt.empty();
            }
        }
        long id = Long.parseLong(digits);
        return id > Integer.MAX_VALUE ? OptionalInt.empty() : OptionalInt.of((int) id);
    }

    /**
     * Whether {@code principal} is one of Tributary's own processes (a broker or a coordinator):
     * the ACL checks treat it as a super user.
     */
    public static boolean isInternal(KafkaPrincipal principal) {
        return brokerId(principal).isPresent()
                || (principal.type().equals(KafkaPrincipal.USER_TYPE)
                        && principal.name().equals(COORDINATOR));
    }

    /**
     * Whether {@code principal} may fetch as follower {@code replicaId}: a broker only as itself;
     * any other principal is left to the ACLs (CLUSTER_ACTION on the cluster, as in Kafka).
     */
    public static boolean mayFetchAsReplica(KafkaPrincipal principal, int replicaId) {
        OptionalInt broker = brokerId(principal);
        return broker.isEmpty() || broker.getAsInt() == replicaId;
    }
}
