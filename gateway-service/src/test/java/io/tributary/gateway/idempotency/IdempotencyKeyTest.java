package io.tributary.gateway.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

/** Validation and scoping of {@code Idempotency-Key}, and what makes two requests the same. */
class IdempotencyKeyTest {

    @Test
    void aUuidOrAnyVisibleAsciiUpTo255CharactersIsAKey() {
        assertThat(IdempotencyKey.parse("orders", "8e03978e-40d5-43e8-bc93-6894a57f9324")
                        .key())
                .isEqualTo("8e03978e-40d5-43e8-bc93-6894a57f9324");
        assertThat(IdempotencyKey.parse("orders", "\"quoted\"~!").key()).isEqualTo("\"quoted\"~!");
        assertThat(IdempotencyKey.parse("orders", "k".repeat(255)).key()).hasSize(255);
    }

    @Test
    void emptyTooLongOrInvisibleKeysAre400NamingTheHeader() {
        for (String bad : new String[] {"", "k".repeat(256), "a b", "tab\there", "caf\u00e9"}) {
            assertThatThrownBy(() -> IdempotencyKey.parse("orders", bad))
                    .as(bad)
                    .isInstanceOfSatisfying(ProblemException.class, e -> {
                        assertThat(e.type()).isEqualTo(ProblemType.INVALID_PARAMETER);
                        assertThat(e.extensions()).containsEntry("parameter", "Idempotency-Key");
                    });
        }
    }

    @Test
    void keysAreScopedByTopicAndPartitionedAsKafkasDefaultPartitionerDoes() {
        IdempotencyKey k = IdempotencyKey.parse("orders", "k-1");
        assertThat(new String(k.recordKey(), StandardCharsets.UTF_8)).isEqualTo("orders/k-1");
        assertThat(k.recordKey())
                .isNotEqualTo(IdempotencyKey.parse("payments", "k-1").recordKey());
        for (int n = 1; n <= 64; n++) {
            assertThat(k.partition(n)).isEqualTo(BuiltInPartitioner.partitionForKey(k.recordKey(), n));
        }
    }

    @Test
    void theDigestChangesWithEveryPartOfTheRequestAndTellsAbsentFromEmpty() {
        byte[] body = "{\"value\":1}".getBytes(StandardCharsets.UTF_8);
        String base = RequestDigest.of("POST", "/v1/topics/t/records", "acks=all", "application/json", null, body);

        assertThat(RequestDigest.of("POST", "/v1/topics/t/records", "acks=all", "application/json", null, body))
                .isEqualTo(base)
                .hasSize(64);
        assertThat(java.util.Set.of(
                        base,
                        RequestDigest.of("PUT", "/v1/topics/t/records", "acks=all", "application/json", null, body),
                        RequestDigest.of(
                                "POST",
                                "/v1/topics/t/partitions/0/records",
                                "acks=all",
                                "application/json",
                                null,
                                body),
                        RequestDigest.of("POST", "/v1/topics/t/records", "acks=leader", "application/json", null, body),
                        RequestDigest.of("POST", "/v1/topics/t/records", null, "application/json", null, body),
                        RequestDigest.of("POST", "/v1/topics/t/records", "", "application/json", null, body),
                        RequestDigest.of("POST", "/v1/topics/t/records", "acks=all", "text/plain", null, body),
                        RequestDigest.of("POST", "/v1/topics/t/records", "acks=all", "application/json", "k", body),
                        RequestDigest.of(
                                "POST",
                                "/v1/topics/t/records",
                                "acks=all",
                                "application/json",
                                null,
                                "{\"value\":2}".getBytes(StandardCharsets.UTF_8))))
                .hasSize(9);
    }
}
