package io.tributary.coordinator.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.common.security.sasl.ScramKeys;
import io.tributary.coordinator.metadata.MetadataCommand.AlterScramCredentials;
import io.tributary.coordinator.metadata.MetadataCommand.ScramDeletion;
import io.tributary.coordinator.metadata.MetadataCommand.ScramUpsertion;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.ScramCredentials;
import io.tributary.coordinator.security.ScramAlterations.Deletion;
import io.tributary.coordinator.security.ScramAlterations.Plan;
import io.tributary.coordinator.security.ScramAlterations.Result;
import io.tributary.coordinator.security.ScramAlterations.Upsertion;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** Kafka's per-user rules of AlterUserScramCredentials, as its controller answers them. */
class ScramAlterationsTest {

    private static final ScramCredentialData CREDENTIAL =
            ScramKeys.fromPassword(ScramKeys.SCRAM_SHA_512, "secret", new byte[] {7}, 4096);

    private final ScramAlterations alterations = new ScramAlterations(ScramRules.DEFAULTS);

    private static Upsertion upsert(String user, int mechanism, int iterations) {
        return new Upsertion(user, mechanism, iterations, Optional.of(CREDENTIAL));
    }

    private static ScramCredentials stored(String... users) {
        MetadataImage image = MetadataImage.EMPTY;
        for (String user : users) {
            image = image.apply(new AlterScramCredentials(
                    List.of(), List.of(new ScramUpsertion(user, ScramKeys.SCRAM_SHA_256, CREDENTIAL))));
        }
        return image.scramCredentials();
    }

    private static Map<String, Errors> errors(Plan plan) {
        return plan.results().stream().collect(Collectors.toMap(Result::user, Result::error));
    }

    @Test
    void acceptedChangesBecomeOneCommandAndEachUserGetsNone() {
        Plan plan = alterations.plan(
                stored("old"),
                List.of(new Deletion("old", ScramKeys.SCRAM_SHA_256)),
                List.of(upsert("alice", 2, 4096), upsert("bob", 1, 16384)));

        assertThat(errors(plan))
                .containsOnly(
                        Map.entry("old", Errors.NONE), Map.entry("alice", Errors.NONE), Map.entry("bob", Errors.NONE));
        assertThat(plan.command())
                .contains(new AlterScramCredentials(
                        List.of(new ScramDeletion("old", 1)),
                        List.of(new ScramUpsertion("alice", 2, CREDENTIAL), new ScramUpsertion("bob", 1, CREDENTIAL))));
        assertThat(plan.results()).allSatisfy(r -> assertThat(r.message()).isNull());
    }

    @Test
    void theInternalUsersNamesAreReservedForUpsertionsAndDeletions() {
        Plan plan = alterations.plan(
                stored("tributary-broker-1"),
                List.of(new Deletion("tributary-broker-1", ScramKeys.SCRAM_SHA_256)),
                List.of(
                        upsert("tributary-broker-2", 2, 4096),
                        upsert("tributary-coordinator", 2, 4096),
                        upsert("tributary-brokers", 2, 4096)));

        assertThat(errors(plan))
                .containsOnly(
                        Map.entry("tributary-broker-1", Errors.UNACCEPTABLE_CREDENTIAL),
                        Map.entry("tributary-broker-2", Errors.UNACCEPTABLE_CREDENTIAL),
                        Map.entry("tributary-coordinator", Errors.UNACCEPTABLE_CREDENTIAL),
                        Map.entry("tributary-brokers", Errors.NONE));
        assertThat(plan.results())
                .filteredOn(r -> r.user().equals("tributary-broker-2"))
                .extracting(Result::message)
                .containsExactly("the user name tributary-broker-2 is reserved for Tributary's brokers and"
                        + " coordinators (names starting with tributary-broker-, and tributary-coordinator); their"
                        + " credentials are written by the coordinators");
        assertThat(plan.command())
                .contains(new AlterScramCredentials(
                        List.of(), List.of(new ScramUpsertion("tributary-brokers", 2, CREDENTIAL))));
    }

    @Test
    void aUserNamedTwiceIsDuplicateResourceWhateverTheMechanismsAndNothingOfItIsWritten() {
        Plan plan = alterations.plan(
                stored("d"),
                List.of(new Deletion("d", 1), new Deletion("d", 2), new Deletion("d", 1)),
                List.of(upsert("u", 1, 4096), upsert("u", 2, 4096), upsert("x", 1, 4096)));

        assertThat(errors(plan))
                .containsOnly(
                        Map.entry("d", Errors.DUPLICATE_RESOURCE),
                        Map.entry("u", Errors.DUPLICATE_RESOURCE),
                        Map.entry("x", Errors.NONE));
        assertThat(plan.results())
                .filteredOn(r -> r.error() == Errors.DUPLICATE_RESOURCE)
                .extracting(Result::message)
                .containsOnly("A user credential cannot be altered twice in the same request");
        assertThat(plan.command().orElseThrow().deletions()).isEmpty();
        assertThat(plan.command().orElseThrow().upsertions())
                .extracting(ScramUpsertion::user)
                .containsExactly("x");
    }

    @Test
    void aDeletionAndAnUpsertionOfOneUserAreADuplicate() {
        Plan plan = alterations.plan(stored("u"), List.of(new Deletion("u", 1)), List.of(upsert("u", 2, 4096)));

        assertThat(errors(plan)).containsOnly(Map.entry("u", Errors.DUPLICATE_RESOURCE));
        assertThat(plan.command()).isEmpty();
    }

    @Test
    void aRefusedUserKeepsItsFirstError() {
        Plan plan = alterations.plan(stored(), List.of(new Deletion("gone", 1)), List.of(upsert("gone", 1, 4096)));

        assertThat(plan.results())
                .containsExactly(new Result(
                        "gone", Errors.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist"));
    }

    @Test
    void deletingACredentialThatIsNotStoredIsResourceNotFound() {
        Plan plan = alterations.plan(stored("u"), List.of(new Deletion("u", 2), new Deletion("v", 1)), List.of());

        assertThat(errors(plan))
                .containsOnly(Map.entry("u", Errors.RESOURCE_NOT_FOUND), Map.entry("v", Errors.RESOURCE_NOT_FOUND));
        assertThat(plan.command()).isEmpty();
    }

    @Test
    void iterationsOutsideKafkasRangeAreUnacceptable() {
        Plan plan = alterations.plan(
                stored(), List.of(), List.of(upsert("few", 1, 4095), upsert("many", 2, 16385), upsert("ok", 1, 4096)));

        assertThat(plan.results())
                .contains(
                        new Result("few", Errors.UNACCEPTABLE_CREDENTIAL, "Too few iterations"),
                        new Result("many", Errors.UNACCEPTABLE_CREDENTIAL, "Too many iterations"),
                        new Result("ok", Errors.NONE, null));
    }

    @Test
    void anEmptyNameIsUnacceptableBeforeAnUnknownMechanismIsUnsupported() {
        Plan plan = alterations.plan(
                stored(),
                List.of(new Deletion("", 0), new Deletion("m", 0)),
                List.of(upsert("n", 3, 4096), new Upsertion("k", 1, 4096, Optional.empty())));

        assertThat(plan.results())
                .containsExactlyInAnyOrder(
                        new Result("", Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty"),
                        new Result("m", Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism"),
                        new Result("n", Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism"),
                        new Result("k", Errors.UNACCEPTABLE_CREDENTIAL, "the salted password must not be empty"));
        assertThat(plan.command()).isEmpty();
    }

    @Test
    void tributarysBoundsAreNameLengthAndUsers() {
        ScramAlterations small = new ScramAlterations(new ScramRules(2, 3, 4096, 16384));

        Plan plan = small.plan(
                stored("a"),
                List.of(),
                List.of(upsert("long", 1, 4096), upsert("a", 2, 4096), upsert("b", 1, 4096), upsert("c", 1, 4096)));

        assertThat(errors(plan))
                .containsOnly(
                        Map.entry("long", Errors.UNACCEPTABLE_CREDENTIAL),
                        Map.entry("a", Errors.NONE),
                        Map.entry("b", Errors.NONE),
                        Map.entry("c", Errors.POLICY_VIOLATION));
    }

    @Test
    void tributarysOwnLoginsLeaveTheBoundToTheClientsUsers() {
        ScramAlterations small = new ScramAlterations(new ScramRules(1, 30, 4096, 16384));

        Plan plan = small.plan(
                stored("tributary-coordinator", "tributary-broker-0", "tributary-broker-1"),
                List.of(),
                List.of(upsert("a", 1, 4096), upsert("b", 1, 4096)));

        assertThat(errors(plan)).containsOnly(Map.entry("a", Errors.NONE), Map.entry("b", Errors.POLICY_VIOLATION));
    }

    @Test
    void deletingAUsersLastCredentialMakesRoomForANewUser() {
        ScramAlterations small = new ScramAlterations(new ScramRules(1, 10, 4096, 16384));

        Plan plan = small.plan(stored("a"), List.of(new Deletion("a", 1)), List.of(upsert("b", 1, 4096)));

        assertThat(errors(plan)).containsOnly(Map.entry("a", Errors.NONE), Map.entry("b", Errors.NONE));
    }

    @Test
    void rulesRefuseIterationsKafkaClientsWouldRefuse() {
        assertThatThrownBy(() -> new ScramRules(1, 1, 4095, 16384)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ScramRules(1, 1, 8192, 4096)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ScramRules(1, 1, 4096, 1_000_001)).isInstanceOf(IllegalArgumentException.class);
    }
}
