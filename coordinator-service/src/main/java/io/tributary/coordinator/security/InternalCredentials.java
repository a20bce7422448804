package io.tributary.coordinator.security;

import io.tributary.common.security.internal.ClusterSecret;
import io.tributary.common.security.internal.InternalLogin;
import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.common.security.sasl.ScramKeys;
import io.tributary.coordinator.metadata.MetadataCommand.AlterScramCredentials;
import io.tributary.coordinator.metadata.MetadataCommand.ScramUpsertion;
import io.tributary.coordinator.metadata.ScramCredentials;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The SCRAM credentials of Tributary's own processes ({@code
 * io.tributary.common.security.internal.InternalUsers}), which the coordinators write into the
 * cluster's credential store so that every listener verifies an internal login from its image,
 * without the cluster secret: one SCRAM-SHA-512 credential for each registered broker ({@code
 * tributary-broker-<id>}, its password derived from its key) and one for the coordinators ({@code
 * tributary-coordinator}).
 *
 * <p>{@link #missing} compares the stored credentials with the secret: a user without a
 * SCRAM-SHA-512 credential, or whose credential was not made from the password this secret derives
 * (the secret changed), gets a new one (a fresh salt, the rules' fewest iterations). Checking a
 * stored credential costs one {@code Hi} of its iterations, so a credential found to match is
 * remembered and not checked again while it stays the same.
 *
 * <p>Thread-safety: not thread-safe; one loop calls it ({@code app.InternalCredentialsLoop}).
 */
public final class InternalCredentials {

    /** The mechanism of the internal credentials: the one the internal logins use. */
    public static final int MECHANISM = ScramKeys.SCRAM_SHA_512;

    private final ClusterSecret secret;
    private final int iterations;
    private final Supplier<byte[]> salts;
    private final Map<String, ScramCredentialData> verified = new HashMap<>();

    /**
     * @param iterations the credentials' iterations (the SCRAM rules' fewest: the logins' passwords
     *     are random, so more iterations buy nothing)
     * @param salts a fresh salt per credential
     */
    public InternalCredentials(ClusterSecret secret, int iterations, Supplier<byte[]> salts) {
        this.secret = Objects.requireNonNull(secret, "secret");
        if (iterations < ScramKeys.MIN_ITERATIONS) {
            throw new IllegalArgumentException("SCRAM iterations must be at least " + ScramKeys.MIN_ITERATIONS);
        }
        this.iterations = iterations;
        this.salts = Objects.requireNonNull(salts, "salts");
    }

    /** The logins whose credentials must be stored: the coordinators', then each broker's. */
    List<InternalLogin> logins(Collection<Integer> brokerIds) {
        List<InternalLogin> logins = new ArrayList<>();
        logins.add(secret.coordinatorLogin());
        brokerIds.stream()
                .sorted()
                .forEach(id -> logins.add(secret.brokerKey(id).kafkaLogin()));
        return logins;
    }

    /**
     * The command that writes the credentials missing from {@code stored} or not made from this
     * secret, for the coordinators and the brokers {@code brokerIds}; empty when all are in place.
     */
    public Optional<AlterScramCredentials> missing(ScramCredentials stored, Collection<Integer> brokerIds) {
        List<ScramUpsertion> upsertions = new ArrayList<>();
        for (InternalLogin login : logins(brokerIds)) {
            Optional<ScramCredentialData> current = stored.get(login.user(), MECHANISM);
            if (current.isPresent() && matches(login, current.get())) {
                continue;
            }
            upsertions.add(new ScramUpsertion(
                    login.user(),
                    MECHANISM,
                    ScramKeys.fromPassword(MECHANISM, login.password(), salts.get(), iterations)));
        }
        return upsertions.isEmpty() ? Optional.empty() : Optional.of(new AlterScramCredentials(List.of(), upsertions));
    }

    private boolean matches(InternalLogin login, ScramCredentialData stored) {
        if (stored.equals(verified.get(login.user()))) {
            return true;
        }
        if (ScramKeys.matches(MECHANISM, stored, login.password().toCharArray())) {
            verified.put(login.user(), stored);
            return true;
        }
        verified.remove(login.user());
        return false;
    }
}
