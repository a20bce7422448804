package io.tributary.broker.cluster;

import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.common.security.sasl.ScramKeys;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The users' SCRAM credentials as the coordinators store them (salt, stored key, server key,
 * iterations; never a password): user name to mechanism code ({@link ScramKeys}: 1 SCRAM-SHA-256, 2
 * SCRAM-SHA-512) to credential. Part of the {@link ClusterImage}; the coordinators' metadata long poll
 * sends them whole whenever one changes.
 *
 * <p>Thread-safety: immutable.
 *
 * @param users user name to mechanism code to credential
 */
public record ScramUsers(Map<String, Map<Integer, ScramCredentialData>> users) {

    /** No user has a credential. */
    public static final ScramUsers EMPTY = new ScramUsers(Map.of());

    public ScramUsers {
        Map<String, Map<Integer, ScramCredentialData>> copy = new TreeMap<>();
        users.forEach((user, byMechanism) -> copy.put(user, Collections.unmodifiableMap(new TreeMap<>(byMechanism))));
        users = Collections.unmodifiableMap(copy);
    }

    /** A user's credential for a mechanism name ({@code SCRAM-SHA-256}), if any. */
    public Optional<ScramCredentialData> get(String mechanism, String user) {
        Map<Integer, ScramCredentialData> byMechanism = users.get(user);
        if (byMechanism == null) {
            return Optional.empty();
        }
        return ScramKeys.code(mechanism).map(byMechanism::get);
    }

    @Override
    public String toString() {
        return "ScramUsers" + users.keySet();
    }
}
