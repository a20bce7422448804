package io.tributary.coordinator.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.security.quota.QuotaEntity;
import io.tributary.common.security.quota.QuotaKey;
import io.tributary.coordinator.metadata.ClientQuotas;
import io.tributary.coordinator.metadata.MetadataCommand.QuotaChange;
import io.tributary.coordinator.security.QuotaChanges.Entry;
import io.tributary.coordinator.security.QuotaChanges.Op;
import io.tributary.coordinator.security.QuotaChanges.Outcome;
import io.tributary.coordinator.security.QuotaChanges.Part;
import io.tributary.coordinator.security.QuotaChanges.Plan;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** Kafka 4.4's AlterClientQuotas checks as the coordinators' leader runs them. */
class QuotaChangesTest {

    private final QuotaChanges changes = new QuotaChanges(2);

    private static Entry entry(List<Part> entity, Op... ops) {
        return new Entry(entity, List.of(ops));
    }

    private static List<Part> user(String name) {
        return List.of(new Part("user", name));
    }

    private static Op set(String key, double value) {
        return new Op(key, value, false);
    }

    private Outcome only(Entry e) {
        Plan plan = changes.plan(ClientQuotas.EMPTY, List.of(e), false);
        return plan.results().getFirst();
    }

    @Test
    void aValidEntryBecomesOneChange() {
        Plan plan =
                changes.plan(ClientQuotas.EMPTY, List.of(entry(user("alice"), set("producer_byte_rate", 1024))), false);

        assertThat(plan.results()).containsExactly(Outcome.NONE);
        assertThat(plan.command().orElseThrow().changes())
                .containsExactly(new QuotaChange(
                        QuotaEntity.user(Optional.of("alice")), Set.of(), Map.of(QuotaKey.PRODUCER_BYTE_RATE, 1024.0)));
    }

    @Test
    void validateOnlyAnswersWithoutACommand() {
        Plan plan = changes.plan(ClientQuotas.EMPTY, List.of(entry(user(null), set("consumer_byte_rate", 10))), true);

        assertThat(plan.results()).containsExactly(Outcome.NONE);
        assertThat(plan.command()).isEmpty();
    }

    @Test
    void badEntitiesGetKafkasMessages() {
        assertThat(only(entry(List.of(), set("producer_byte_rate", 1))).message())
                .isEqualTo("Invalid empty client quota entity");
        assertThat(only(entry(List.of(new Part("group", "g")), set("producer_byte_rate", 1)))
                        .message())
                .isEqualTo("Unhandled client quota entity type: group");
        assertThat(only(entry(user(""), set("producer_byte_rate", 1))).message())
                .isEqualTo("Empty user not supported");
        assertThat(only(entry(List.of(new Part("user", "a"), new Part("ip", "10.0.0.1")), set("producer_byte_rate", 1)))
                        .message())
                .startsWith("Invalid quota entity combination");
        assertThat(only(entry(List.of(new Part("ip", "not-an-ip")), set("connection_creation_rate", 1)))
                        .message())
                .isEqualTo("not-an-ip is not a valid IP or resolvable host.");
        assertThat(only(entry(user("a"), set("producer_byte_rate", 1))).error()).isEqualTo(Errors.NONE);
    }

    @Test
    void badValuesGetKafkasMessages() {
        assertThat(only(entry(user("a"), set("nope", 1))).message()).isEqualTo("Invalid configuration key nope");
        assertThat(only(entry(user("a"), set("connection_creation_rate", 1))).message())
                .isEqualTo("Invalid configuration key connection_creation_rate");
        assertThat(only(entry(user("a"), set("producer_byte_rate", 0))).message())
                .isEqualTo("Quota producer_byte_rate must be greater than 0");
        assertThat(only(entry(user("a"), set("producer_byte_rate", -5))).error())
                .isEqualTo(Errors.INVALID_REQUEST);
        assertThat(only(entry(user("a"), set("request_percentage", Double.POSITIVE_INFINITY)))
                        .message())
                .isEqualTo("Quota request_percentage must be a finite number");
        assertThat(only(entry(user("a"), set("producer_byte_rate", 1.5))).message())
                .isEqualTo("producer_byte_rate cannot be a fractional value.");
        assertThat(only(entry(user("a"), set("request_percentage", 1.5))).error())
                .isEqualTo(Errors.NONE);
        assertThat(only(entry(user("a"), set("producer_byte_rate", 1e30))).message())
                .isEqualTo("Proposed value for producer_byte_rate is too large for a LONG.");
        assertThat(only(entry(user("a"), set("producer_byte_rate", 1), set("producer_byte_rate", 2)))
                        .message())
                .startsWith("Duplicate quota key producer_byte_rate");
    }

    @Test
    void aSecondEntryForTheSameEntityIsRefusedAndTheFirstStored() {
        Plan plan = changes.plan(
                ClientQuotas.EMPTY,
                List.of(entry(user("a"), set("producer_byte_rate", 1)), entry(user("a"), set("producer_byte_rate", 2))),
                false);

        assertThat(plan.results().get(0)).isEqualTo(Outcome.NONE);
        assertThat(plan.results().get(1).message()).startsWith("Ignoring duplicate entity");
        assertThat(plan.command().orElseThrow().changes()).hasSize(1);
    }

    @Test
    void newEntitiesPastTheBoundArePolicyViolationsButChangesToStoredOnesAreNot() {
        Plan plan = changes.plan(
                ClientQuotas.EMPTY,
                List.of(
                        entry(user("a"), set("producer_byte_rate", 1)),
                        entry(user("b"), set("producer_byte_rate", 1)),
                        entry(user("c"), set("producer_byte_rate", 1))),
                false);

        assertThat(plan.results().stream().map(Outcome::error))
                .containsExactly(Errors.NONE, Errors.NONE, Errors.POLICY_VIOLATION);
    }

    @Test
    void removingAValueNotStoredIsASuccessWithoutACommand() {
        Plan plan = changes.plan(
                ClientQuotas.EMPTY, List.of(entry(user("a"), new Op("producer_byte_rate", 0, true))), false);

        assertThat(plan.results()).containsExactly(Outcome.NONE);
        assertThat(plan.command()).isEmpty();
    }
}
