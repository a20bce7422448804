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
 * <p>During a rotation of the secret ({@code previous-secret-file} set beside {@code secret-file})
 * a broker's credential is made from the secret the broker signs its control-plane calls with
 * ({@link BrokerSigningSecrets}): the previous one while it has not restarted with the new one,
 * the current one afterwards. A broker not seen signing since this coordinator started keeps a
 * credential made from either secret. The coordinators' own credential is always made from the
 * current secret: only the leader logs in with it (the consumer lag metric), and the leader is
 * the one that writes it.
 *
 * <p>Thread-safety: not thread-safe; one loop calls it ({@code app.InternalCredentialsLoop}).
 */
public final class InternalCredentials {

    /** The mechanism of the internal credentials: the one the internal logins use. */
    public static final int MECHANISM = ScramKeys.SCRAM_SHA_512;

    private final ClusterSecret secret;
    private final Optional<ClusterSecret> previous;
    private final BrokerSigningSecrets signers;
    private final int iterations;
    private final Supplier<byte[]> salts;
    /** A stored credential found to match, with the password it matched, per user. */
    private final Map<String, Verified> verified = new HashMap<>();

    private record Verified(ScramCredentialData stored, String password) {}

    /**
     * Credentials of one secret, outside a rotation.
     *
     * @param iterations the credentials' iterations (the SCRAM rules' fewest: the logins' passwords
     *     are random, so more iterations buy nothing)
     * @param salts a fresh salt per credential
     */
    public InternalCredentials(ClusterSecret secret, int iterations, Supplier<byte[]> salts) {
        this(secret, Optional.empty(), new BrokerSigningSecrets(), iterations, salts);
    }

    /**
     * Credentials of the current secret and, during a rotation, of the previous one for the
     * brokers that still sign with it.
     *
     * @param previous the secret being rotated out; empty outside a rotation
     * @param signers the secret each broker was last seen signing with
     * @param iterations the credentials' iterations (the SCRAM rules' fewest: the logins' passwords
     *     are random, so more iterations buy nothing)
     * @param salts a fresh salt per credential
     */
    public InternalCredentials(
            ClusterSecret secret,
            Optional<ClusterSecret> previous,
            BrokerSigningSecrets signers,
            int iterations,
            Supplier<byte[]> salts) {
        this.secret = Objects.requireNonNull(secret, "secret");
        this.previous = Objects.requireNonNull(previous, "previous");
        this.signers = Objects.requireNonNull(signers, "signers");
        if (iterations < ScramKeys.MIN_ITERATIONS) {
            throw new IllegalArgumentException("SCRAM iterations must be at least " + ScramKeys.MIN_ITERATIONS);
        }
        this.iterations = iterations;
        this.salts = Objects.requireNonNull(salts, "salts");
    }

    /**
     * For each user whose credential must be stored (the coordinators', then each broker's), the
     * logins a stored credential may be made from; a missing or other credential is replaced by
     * one of the first.
     */
    List<List<InternalLogin>> logins(Collection<Integer> brokerIds) {
        List<List<InternalLogin>> logins = new ArrayList<>();
        logins.add(List.of(secret.coordinatorLogin()));
        brokerIds.stream().sorted().forEach(id -> logins.add(brokerLogins(id)));
        return logins;
    }

    private List<InternalLogin> brokerLogins(int brokerId) {
        InternalLogin current = secret.brokerKey(brokerId).kafkaLogin();
        if (previous.isEmpty()) {
            return List.of(current);
        }
        InternalLogin before = previous.get().brokerKey(brokerId).kafkaLogin();
        return switch (signers.lastUsedBy(brokerId).orElse(null)) {
            case CURRENT -> List.of(current);
            case PREVIOUS -> List.of(before);
            case null -> List.of(current, before);
        };
    }

    /**
     * The command that writes the credentials missing from {@code stored} or not made from this
     * secret, for the coordinators and the brokers {@code brokerIds}; empty when all are in place.
     */
    public Optional<AlterScramCredentials> missing(ScramCredentials stored, Collection<Integer> brokerIds) {
        List<ScramUpsertion> upsertions = new ArrayList<>();
        for (List<InternalLogin> candidates : logins(brokerIds)) {
            InternalLogin first = candidates.getFirst();
            Optional<ScramCredentialData> current = stored.get(first.user(), MECHANISM);
            if (current.isPresent() && matchesAny(candidates, current.get())) {
                continue;
            }
            upsertions.add(new ScramUpsertion(
                    first.user(),
                    MECHANISM,
                    ScramKeys.fromPassword(MECHANISM, first.password(), salts.get(), iterations)));
        }
        return upsertions.isEmpty() ? Optional.empty() : Optional.of(new AlterScramCredentials(List.of(), upsertions));
    }

    private boolean matchesAny(List<InternalLogin> candidates, ScramCredentialData stored) {
        String user = candidates.getFirst().user();
        Verified known = verified.get(user);
        if (known != null
                && known.stored().equals(stored)
                && candidates.stream().anyMatch(c -> c.password().equals(known.password()))) {
            return true;
        }
        for (InternalLogin candidate : candidates) {
            if (ScramKeys.matches(MECHANISM, stored, candidate.password().toCharArray())) {
                verified.put(user, new Verified(stored, candidate.password()));
                return true;
            }
        }
        verified.remove(user);
        return false;
    }
}
