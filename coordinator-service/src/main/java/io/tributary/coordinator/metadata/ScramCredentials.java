package io.tributary.coordinator.metadata;

import io.tributary.common.security.acl.KafkaPrincipal;
import io.tributary.common.security.internal.InternalUsers;
import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.common.security.sasl.ScramKeys;
import io.tributary.coordinator.metadata.MetadataCommand.ScramDeletion;
import io.tributary.coordinator.metadata.MetadataCommand.ScramUpsertion;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The SCRAM credentials of a {@link MetadataImage}: user name to mechanism code ({@link ScramKeys}:
 * 1 SCRAM-SHA-256, 2 SCRAM-SHA-512) to the stored credential (salt, stored key, server key,
 * iterations; never a password), and whether the cluster's bootstrap credentials were written
 * ({@link MetadataCommand.BootstrapScramCredentials}: once in a cluster's life).
 *
 * <p>A value of its own, like {@link ClassicGroups}: images whose command did not touch credentials
 * share it unchanged; a change copies the outer map.
 *
 * <p>Thread-safety: immutable; safe to share. {@link ScramCredentialData} copies its arrays.
 */
public final class ScramCredentials {

    /** No credential, bootstrap not written yet (a new cluster). */
    public static final ScramCredentials EMPTY = new ScramCredentials(new TreeMap<>(), false);

    private final SortedMap<String, SortedMap<Integer, ScramCredentialData>> users;
    private final boolean bootstrapped;

    private ScramCredentials(SortedMap<String, SortedMap<Integer, ScramCredentialData>> users, boolean bootstrapped) {
        SortedMap<String, SortedMap<Integer, ScramCredentialData>> copy = new TreeMap<>();
        users.forEach(
                (user, byMechanism) -> copy.put(user, Collections.unmodifiableSortedMap(new TreeMap<>(byMechanism))));
        this.users = Collections.unmodifiableSortedMap(copy);
        this.bootstrapped = bootstrapped;
    }

    /**
     * Builds the credentials from a snapshot being read (or tests).
     *
     * @throws IllegalStateException if a user is empty, has no credential, or a mechanism is unknown
     */
    public static ScramCredentials of(
            SortedMap<String, SortedMap<Integer, ScramCredentialData>> users, boolean bootstrapped) {
        users.forEach((user, byMechanism) -> {
            if (user.isEmpty() || byMechanism.isEmpty()) {
                throw new IllegalStateException("SCRAM credentials: user '" + user + "' is empty or has none");
            }
            byMechanism.forEach((code, credential) -> {
                try {
                    check(user, code, credential);
                } catch (InvalidRequestException e) {
                    throw new IllegalStateException("SCRAM credentials: " + e.getMessage(), e);
                }
            });
        });
        return new ScramCredentials(users, bootstrapped);
    }

    /** How many users have at least one credential. */
    public int userCount() {
        return users.size();
    }

    /**
     * How many of them are the cluster's clients' users: {@link #userCount()} less Tributary's own
     * processes' logins ({@link InternalUsers#isInternal}: {@code tributary-coordinator} and one
     * {@code tributary-broker-<id>} per broker, which the coordinators write), so that a cluster's
     * size never uses up the bound on its users.
     */
    public int clientUserCount() {
        return (int) users.keySet().stream()
                .filter(user -> !InternalUsers.isInternal(KafkaPrincipal.user(user)))
                .count();
    }

    /** Whether the cluster's bootstrap credentials were written (whatever they were, none included). */
    public boolean bootstrapped() {
        return bootstrapped;
    }

    /** The credential of a user for a mechanism code, if any. */
    public Optional<ScramCredentialData> get(String user, int mechanism) {
        SortedMap<Integer, ScramCredentialData> byMechanism = users.get(user);
        return byMechanism == null ? Optional.empty() : Optional.ofNullable(byMechanism.get(mechanism));
    }

    /** Every user's credentials, users in name order, mechanisms ascending (unmodifiable). */
    public SortedMap<String, SortedMap<Integer, ScramCredentialData>> asMap() {
        return users;
    }

    /**
     * These credentials with {@code deletions} removed (one not stored is ignored: a resent command),
     * then {@code upsertions} stored, each replacing what was stored for its user and mechanism;
     * {@code this} when nothing changes.
     *
     * @throws InvalidRequestException if a user is empty, a mechanism unknown, or a credential
     *     incomplete (no keys, iterations not positive)
     */
    ScramCredentials with(List<ScramDeletion> deletions, List<ScramUpsertion> upsertions) {
        for (ScramDeletion d : deletions) {
            checkUser(d.user(), d.mechanism());
        }
        for (ScramUpsertion u : upsertions) {
            check(u.user(), u.mechanism(), u.credential());
        }
        SortedMap<String, SortedMap<Integer, ScramCredentialData>> next = new TreeMap<>();
        users.forEach((user, byMechanism) -> next.put(user, new TreeMap<>(byMechanism)));
        for (ScramDeletion d : deletions) {
            SortedMap<Integer, ScramCredentialData> byMechanism = next.get(d.user());
            if (byMechanism != null) {
                byMechanism.remove(d.mechanism());
                if (byMechanism.isEmpty()) {
                    next.remove(d.user());
                }
            }
        }
        for (ScramUpsertion u : upsertions) {
            next.computeIfAbsent(u.user(), k -> new TreeMap<>()).put(u.mechanism(), u.credential());
        }
        return next.equals(users) ? this : new ScramCredentials(next, bootstrapped);
    }

    /** These credentials marked bootstrapped. */
    ScramCredentials markBootstrapped() {
        return bootstrapped ? this : new ScramCredentials(users, true);
    }

    private static void checkUser(String user, int mechanism) {
        if (user.isEmpty()) {
            throw new InvalidRequestException("a SCRAM user name must not be empty");
        }
        if (ScramKeys.name(mechanism).isEmpty()) {
            throw new InvalidRequestException("user '" + user + "': unknown SCRAM mechanism " + mechanism);
        }
    }

    private static void check(String user, int mechanism, ScramCredentialData credential) {
        checkUser(user, mechanism);
        if (credential.iterations() < 1 || credential.storedKey().length == 0 || credential.serverKey().length == 0) {
            throw new InvalidRequestException(
                    "user '" + user + "': a SCRAM credential needs keys and 1 or more iterations");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ScramCredentials other && bootstrapped == other.bootstrapped && users.equals(other.users);
    }

    @Override
    public int hashCode() {
        return users.hashCode() * 31 + Boolean.hashCode(bootstrapped);
    }

    @Override
    public String toString() {
        return "ScramCredentials[users=" + users.keySet() + ", bootstrapped=" + bootstrapped + "]";
    }
}
