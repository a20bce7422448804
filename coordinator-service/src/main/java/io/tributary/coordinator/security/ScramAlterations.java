package io.tributary.coordinator.security;

import io.tributary.common.security.internal.InternalUsers;
import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.common.security.sasl.ScramKeys;
import io.tributary.coordinator.metadata.MetadataCommand.AlterScramCredentials;
import io.tributary.coordinator.metadata.MetadataCommand.ScramDeletion;
import io.tributary.coordinator.metadata.MetadataCommand.ScramUpsertion;
import io.tributary.coordinator.metadata.ScramCredentials;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka's AlterUserScramCredentials (API 51) as its controller answers it: which alterations of a
 * request are written and each user's result. Run by the coordinators' leader on its latest image;
 * the accepted alterations become one {@link AlterScramCredentials} command (all or none committed).
 *
 * <p>Per user, in request order (deletions first, then upsertions, as Kafka reads them):
 *
 * <ol>
 *   <li>A user already refused keeps its first error; a user named a second time (two deletions, a
 *       deletion and an upsertion, two upsertions, whatever the mechanisms) is {@code
 *       DUPLICATE_RESOURCE} and none of its alterations is written.
 *   <li>An empty name is {@code UNACCEPTABLE_CREDENTIAL}; an unknown mechanism code {@code
 *       UNSUPPORTED_SASL_MECHANISM}; a name longer than {@link ScramRules#maxUserNameLength()} {@code
 *       UNACCEPTABLE_CREDENTIAL} (Tributary's bound); a reserved name ({@link InternalUsers#reserved}:
 *       {@code tributary-broker-*} and {@code tributary-coordinator}, whose credentials the
 *       coordinators write themselves, {@link InternalCredentials}) {@code UNACCEPTABLE_CREDENTIAL},
 *       deletions included (Tributary's rule: Kafka reserves no name).
 *   <li>A deletion of a credential that is not stored is {@code RESOURCE_NOT_FOUND}.
 *   <li>An upsertion with iterations outside {@link ScramRules#minIterations()}..{@link
 *       ScramRules#maxIterations()} is {@code UNACCEPTABLE_CREDENTIAL}; one without keys (the broker
 *       could not derive them: an empty salted password) {@code UNACCEPTABLE_CREDENTIAL}.
 *   <li>An upsertion giving a first credential to a user when {@link ScramRules#maxUsers()} users
 *       have one (after the request's deletions) is {@code POLICY_VIOLATION} (Tributary's bound).
 * </ol>
 *
 * <p>Results: the written deletions, the written upsertions, then the refusals; Kafka's order of
 * each part is a hash map's, so clients match results by user.
 *
 * <p>Thread-safety: immutable.
 */
public final class ScramAlterations {

    /** A credential to delete, as the request names it. */
    public record Deletion(String user, int mechanism) {
        public Deletion {
            Objects.requireNonNull(user, "user");
        }
    }

    /**
     * A credential to store, its keys already derived from the salted password by the broker (which
     * never sends the salted password on); empty when it could not derive them.
     */
    public record Upsertion(String user, int mechanism, int iterations, Optional<ScramCredentialData> credential) {
        public Upsertion {
            Objects.requireNonNull(user, "user");
            Objects.requireNonNull(credential, "credential");
        }
    }

    /** One user's result: {@link Errors#NONE} with no message, or an error and its message. */
    public record Result(String user, Errors error, String message) {
        public Result {
            Objects.requireNonNull(user, "user");
            Objects.requireNonNull(error, "error");
        }
    }

    /** What to answer, and the command to write when something was accepted. */
    public record Plan(List<Result> results, Optional<AlterScramCredentials> command) {
        public Plan {
            results = List.copyOf(results);
            Objects.requireNonNull(command, "command");
        }
    }

    private final ScramRules rules;

    public ScramAlterations(ScramRules rules) {
        this.rules = Objects.requireNonNull(rules, "rules");
    }

    /** The plan for a request against the credentials stored now. */
    public Plan plan(ScramCredentials stored, List<Deletion> deletions, List<Upsertion> upsertions) {
        Map<String, Result> refused = new LinkedHashMap<>();
        Map<String, Deletion> deletes = new LinkedHashMap<>();
        Map<String, Upsertion> upserts = new LinkedHashMap<>();
        for (Deletion d : deletions) {
            if (refused.containsKey(d.user())) {
                continue;
            }
            if (deletes.remove(d.user()) != null) {
                refused.put(d.user(), duplicate(d.user()));
                continue;
            }
            Optional<Result> error = checkName(d.user(), d.mechanism())
                    .or(() -> stored.get(d.user(), d.mechanism()).isPresent()
                            ? Optional.empty()
                            : Optional.of(new Result(
                                    d.user(),
                                    Errors.RESOURCE_NOT_FOUND,
                                    "Attempt to delete a user credential that does not exist")));
            error.ifPresentOrElse(e -> refused.put(d.user(), e), () -> deletes.put(d.user(), d));
        }
        for (Upsertion u : upsertions) {
            if (refused.containsKey(u.user())) {
                continue;
            }
            if (deletes.remove(u.user()) != null || upserts.remove(u.user()) != null) {
                refused.put(u.user(), duplicate(u.user()));
                continue;
            }
            checkName(u.user(), u.mechanism())
                    .or(() -> checkIterations(u.user(), u.iterations()))
                    .or(() -> checkKeys(u))
                    .ifPresentOrElse(e -> refused.put(u.user(), e), () -> upserts.put(u.user(), u));
        }
        int users = usersAfterDeletions(stored, deletes.values());
        for (var it = upserts.values().iterator(); it.hasNext(); ) {
            Upsertion u = it.next();
            if (stored.asMap().containsKey(u.user())) {
                continue; // not a new user (a user is never both deleted and upserted here)
            }
            if (users >= rules.maxUsers()) {
                it.remove();
                refused.put(
                        u.user(),
                        new Result(
                                u.user(),
                                Errors.POLICY_VIOLATION,
                                "%d users have SCRAM credentials; the limit is %d".formatted(users, rules.maxUsers())));
            } else {
                users++;
            }
        }
        List<Result> results = new ArrayList<>();
        deletes.keySet().forEach(user -> results.add(new Result(user, Errors.NONE, null)));
        upserts.keySet().forEach(user -> results.add(new Result(user, Errors.NONE, null)));
        results.addAll(refused.values());
        if (deletes.isEmpty() && upserts.isEmpty()) {
            return new Plan(results, Optional.empty());
        }
        List<ScramDeletion> commandDeletions = deletes.values().stream()
                .map(d -> new ScramDeletion(d.user(), d.mechanism()))
                .toList();
        List<ScramUpsertion> commandUpsertions = upserts.values().stream()
                .map(u -> new ScramUpsertion(
                        u.user(), u.mechanism(), u.credential().orElseThrow()))
                .toList();
        return new Plan(results, Optional.of(new AlterScramCredentials(commandDeletions, commandUpsertions)));
    }

    /** The name and mechanism rules every alteration follows (also the bootstrap users'). */
    Optional<Result> checkName(String user, int mechanism) {
        if (user.isEmpty()) {
            return Optional.of(new Result(user, Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty"));
        }
        if (ScramKeys.name(mechanism).isEmpty()) {
            return Optional.of(new Result(user, Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism"));
        }
        if (InternalUsers.reserved(user)) {
            return Optional.of(new Result(
                    user,
                    Errors.UNACCEPTABLE_CREDENTIAL,
                    "the user name %s is reserved for Tributary's brokers and coordinators (names starting with %s,"
                                    .formatted(user, InternalUsers.BROKER_PREFIX)
                            + " and " + InternalUsers.COORDINATOR + "); their credentials are written by the"
                            + " coordinators"));
        }
        if (user.length() > rules.maxUserNameLength()) {
            return Optional.of(new Result(
                    user,
                    Errors.UNACCEPTABLE_CREDENTIAL,
                    "the user name is %d characters; the limit is %d"
                            .formatted(user.length(), rules.maxUserNameLength())));
        }
        return Optional.empty();
    }

    /** The iteration bounds (also the bootstrap users'). */
    Optional<Result> checkIterations(String user, int iterations) {
        if (iterations < rules.minIterations()) {
            return Optional.of(new Result(user, Errors.UNACCEPTABLE_CREDENTIAL, "Too few iterations"));
        }
        if (iterations > rules.maxIterations()) {
            return Optional.of(new Result(user, Errors.UNACCEPTABLE_CREDENTIAL, "Too many iterations"));
        }
        return Optional.empty();
    }

    /** Keys present: the broker derived them from a salted password that was not empty. */
    private static Optional<Result> checkKeys(Upsertion u) {
        return u.credential().isPresent()
                ? Optional.empty()
                : Optional.of(
                        new Result(u.user(), Errors.UNACCEPTABLE_CREDENTIAL, "the salted password must not be empty"));
    }

    /** Users with a credential once the deletions are applied. */
    private static int usersAfterDeletions(ScramCredentials stored, Iterable<Deletion> deletions) {
        int users = stored.clientUserCount(); // Tributary's own logins are not clients' users
        for (Deletion d : deletions) {
            if (freedBy(stored, d)) {
                users--;
            }
        }
        return users;
    }

    /** Whether a deletion removes its user's last credential. */
    private static boolean freedBy(ScramCredentials stored, Deletion d) {
        var byMechanism = stored.asMap().get(d.user());
        return byMechanism != null && byMechanism.size() == 1 && byMechanism.containsKey(d.mechanism());
    }

    private static Result duplicate(String user) {
        return new Result(
                user, Errors.DUPLICATE_RESOURCE, "A user credential cannot be altered twice in the same request");
    }
}
