package io.tributary.broker.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.cluster.ClusterQuotas;
import io.tributary.common.security.quota.QuotaEntity;
import io.tributary.common.security.quota.QuotaKey;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Kafka's eight-step precedence, and who shares the rate each step bounds. */
class QuotaResolverTest {

    private static final Optional<String> DEFAULT = Optional.empty();
    private static final Optional<String> ALICE = Optional.of("alice");
    private static final Optional<String> APP = Optional.of("app");

    /** The entities of Kafka's precedence, most specific first, each with a distinct quota (1..8). */
    private static final List<QuotaEntity> ORDER = List.of(
            QuotaEntity.userAndClientId(ALICE, APP),
            QuotaEntity.userAndClientId(ALICE, DEFAULT),
            QuotaEntity.user(ALICE),
            QuotaEntity.userAndClientId(DEFAULT, APP),
            QuotaEntity.userAndClientId(DEFAULT, DEFAULT),
            QuotaEntity.user(DEFAULT),
            QuotaEntity.clientId(APP),
            QuotaEntity.clientId(DEFAULT));

    private static ClusterQuotas from(int first) {
        Map<QuotaEntity, Map<QuotaKey, Double>> byEntity = new LinkedHashMap<>();
        for (int i = first; i < ORDER.size(); i++) {
            byEntity.put(ORDER.get(i), Map.of(QuotaKey.PRODUCER_BYTE_RATE, i + 1.0));
        }
        return new ClusterQuotas(byEntity);
    }

    @Test
    void eachStepWinsOverEveryLaterOneInKafkasOrder() {
        for (int first = 0; first < ORDER.size(); first++) {
            Optional<QuotaResolver.Resolved> resolved =
                    QuotaResolver.resolve(from(first), QuotaKey.PRODUCER_BYTE_RATE, "alice", "app");

            assertThat(resolved.orElseThrow().bound())
                    .as("from step %d", first + 1)
                    .isEqualTo(first + 1.0);
        }
    }

    @Test
    void userQuotasAreSharedByTheUsersClientsAndClientIdQuotasByTheClientsUsers() {
        assertThat(QuotaResolver.resolve(from(2), QuotaKey.PRODUCER_BYTE_RATE, "alice", "app"))
                .contains(new QuotaResolver.Resolved(3, "alice", ""));
        assertThat(QuotaResolver.resolve(from(5), QuotaKey.PRODUCER_BYTE_RATE, "bob", "app"))
                .contains(new QuotaResolver.Resolved(6, "bob", ""));
        assertThat(QuotaResolver.resolve(from(6), QuotaKey.PRODUCER_BYTE_RATE, "bob", "app"))
                .contains(new QuotaResolver.Resolved(7, "", "app"));
        assertThat(QuotaResolver.resolve(from(0), QuotaKey.PRODUCER_BYTE_RATE, "alice", "app"))
                .contains(new QuotaResolver.Resolved(1, "alice", "app"));
    }

    @Test
    void anotherKeysQuotaOrNoQuotaResolvesToNothing() {
        assertThat(QuotaResolver.resolve(from(0), QuotaKey.CONSUMER_BYTE_RATE, "alice", "app"))
                .isEmpty();
        assertThat(QuotaResolver.resolve(ClusterQuotas.EMPTY, QuotaKey.PRODUCER_BYTE_RATE, "alice", "app"))
                .isEmpty();
        assertThat(QuotaResolver.resolve(
                        new ClusterQuotas(Map.of(QuotaEntity.user(ALICE), Map.of(QuotaKey.PRODUCER_BYTE_RATE, 1.0))),
                        QuotaKey.PRODUCER_BYTE_RATE,
                        "bob",
                        "app"))
                .isEmpty();
    }
}
