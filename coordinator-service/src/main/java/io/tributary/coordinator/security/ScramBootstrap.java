package io.tributary.coordinator.security;

import io.tributary.common.security.sasl.ScramKeys;
import io.tributary.coordinator.metadata.MetadataCommand.BootstrapScramCredentials;
import io.tributary.coordinator.metadata.MetadataCommand.ScramUpsertion;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A new cluster's first SCRAM users, from the coordinators' settings ({@code
 * tributary.coordinator.security.bootstrap-scram-users}), as Kafka's {@code kafka-storage format
 * --add-scram}: turned into one {@link BootstrapScramCredentials} command that the leader writes
 * while the image is not bootstrapped, which the state machine applies once in the cluster's life.
 * Passwords stay here: the command holds salts and keys only.
 *
 * <p>Thread-safety: immutable.
 */
public final class ScramBootstrap {

    /**
     * One user: a mechanism's credential made from a password.
     *
     * @param name the user name (Kafka principal {@code User:<name>})
     * @param mechanism {@code SCRAM-SHA-256} or {@code SCRAM-SHA-512}
     * @param password the password (not empty; never logged nor written)
     * @param iterations the credential's iterations, within the {@link ScramRules}
     */
    public record User(String name, String mechanism, String password, int iterations) {
        public User {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(mechanism, "mechanism");
            Objects.requireNonNull(password, "password");
        }

        @Override
        public String toString() {
            return "User[name=" + name + ", mechanism=" + mechanism + ", iterations=" + iterations + "]";
        }
    }

    private final List<User> users;

    /**
     * @throws IllegalArgumentException naming the first user that breaks a rule: an empty or too long
     *     name, an unknown mechanism, an empty password, iterations out of bounds, a user and
     *     mechanism twice, more users than the bound
     */
    public ScramBootstrap(List<User> users, ScramRules rules) {
        this.users = List.copyOf(users);
        ScramAlterations checks = new ScramAlterations(rules);
        Set<String> seen = new HashSet<>();
        Set<String> names = new HashSet<>();
        for (User u : this.users) {
            int code = ScramKeys.code(u.mechanism())
                    .orElseThrow(() -> new IllegalArgumentException("bootstrap SCRAM user '" + u.name()
                            + "': unknown mechanism '" + u.mechanism() + "' (SCRAM-SHA-256 or SCRAM-SHA-512)"));
            var refusal = checks.checkName(u.name(), code).or(() -> checks.checkIterations(u.name(), u.iterations()));
            if (refusal.isPresent()) {
                throw new IllegalArgumentException("bootstrap SCRAM user '" + u.name() + "': "
                        + refusal.get().message());
            }
            if (u.password().isEmpty()) {
                throw new IllegalArgumentException("bootstrap SCRAM user '" + u.name() + "': the password is empty");
            }
            if (!seen.add(u.name() + "\u0000" + u.mechanism())) {
                throw new IllegalArgumentException(
                        "bootstrap SCRAM user '" + u.name() + "' has " + u.mechanism() + " twice");
            }
            names.add(u.name());
        }
        if (names.size() > rules.maxUsers()) {
            throw new IllegalArgumentException(
                    "%d bootstrap SCRAM users; the limit is %d".formatted(names.size(), rules.maxUsers()));
        }
    }

    /** The configured users (passwords included: keep it to this process). */
    public List<User> users() {
        return users;
    }

    /** The command, each credential with a fresh salt from {@code salts}. */
    public BootstrapScramCredentials command(Supplier<byte[]> salts) {
        List<ScramUpsertion> upsertions = new ArrayList<>();
        for (User u : users) {
            int code = ScramKeys.code(u.mechanism()).orElseThrow();
            upsertions.add(new ScramUpsertion(
                    u.name(), code, ScramKeys.fromPassword(code, u.password(), salts.get(), u.iterations())));
        }
        return new BootstrapScramCredentials(upsertions);
    }
}
