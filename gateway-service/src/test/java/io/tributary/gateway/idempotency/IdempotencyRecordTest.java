package io.tributary.gateway.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The idempotency log's record format, exactly as documented in {@link IdempotencyRecord}. */
class IdempotencyRecordTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String SHA = "ab".repeat(32);

    private static String encoded(IdempotencyRecord r) {
        return new String(IdempotencyRecord.encode(r, JSON), StandardCharsets.UTF_8);
    }

    @Test
    void aClaimIsWrittenAsDocumented() {
        assertThat(encoded(new IdempotencyRecord.Claim(SHA, "gateway-0-1f")))
                .isEqualTo(
                        "{\"v\":1,\"type\":\"claim\",\"request_sha256\":\"" + SHA + "\",\"replica\":\"gateway-0-1f\"}");
    }

    @Test
    void aResultIsWrittenAsDocumentedWithItsBodyAsText() {
        byte[] body = "{\"results\":[{\"partition\":0,\"offset\":7}]}".getBytes(StandardCharsets.UTF_8);
        IdempotencyRecord.Result r = new IdempotencyRecord.Result(
                41, 1_800_000_000_000L, SHA, 200, "application/json", Optional.of(body), SHA, body.length);

        assertThat(encoded(r))
                .isEqualTo("{\"v\":1,\"type\":\"result\",\"claim_offset\":41,\"claim_timestamp\":1800000000000,"
                        + "\"request_sha256\":\"" + SHA + "\",\"status\":200,\"content_type\":\"application/json\","
                        + "\"body\":\"{\\\"results\\\":[{\\\"partition\\\":0,\\\"offset\\\":7}]}\","
                        + "\"body_sha256\":\"" + SHA + "\",\"body_bytes\":" + body.length + "}");
    }

    @Test
    void aReleaseIsWrittenAsDocumented() {
        assertThat(encoded(new IdempotencyRecord.Release(41, 5, SHA, 503)))
                .isEqualTo("{\"v\":1,\"type\":\"release\",\"claim_offset\":41,\"claim_timestamp\":5,"
                        + "\"request_sha256\":\"" + SHA + "\",\"status\":503}");
    }

    @Test
    void everyRecordReadsBackAsWritten() {
        byte[] body = "{\"a\":\"é\"}".getBytes(StandardCharsets.UTF_8);
        IdempotencyRecord.Result stored =
                new IdempotencyRecord.Result(1, 2, SHA, 207, "application/json", Optional.of(body), SHA, 3);
        IdempotencyRecord.Result digestOnly =
                new IdempotencyRecord.Result(1, 2, SHA, 200, "application/json", Optional.empty(), SHA, 900_000);

        IdempotencyRecord.Result back =
                (IdempotencyRecord.Result) IdempotencyRecord.decode(IdempotencyRecord.encode(stored, JSON), JSON)
                        .orElseThrow();
        assertThat(back.body()).hasValueSatisfying(b -> assertThat(b).isEqualTo(body));
        assertThat(back.claimOffset()).isEqualTo(1);
        assertThat(back.status()).isEqualTo(207);
        assertThat(IdempotencyRecord.decode(IdempotencyRecord.encode(digestOnly, JSON), JSON))
                .hasValueSatisfying(
                        r -> assertThat(((IdempotencyRecord.Result) r).body()).isEmpty());
        IdempotencyRecord claim = new IdempotencyRecord.Claim(SHA, "r");
        assertThat(IdempotencyRecord.decode(IdempotencyRecord.encode(claim, JSON), JSON))
                .contains(claim);
        IdempotencyRecord release = new IdempotencyRecord.Release(3, 4, SHA, 503);
        assertThat(IdempotencyRecord.decode(IdempotencyRecord.encode(release, JSON), JSON))
                .contains(release);
    }

    @Test
    void anythingElseIsNotARecord() {
        for (String value : new String[] {
            "",
            "not json",
            "[]",
            "{\"v\":2,\"type\":\"claim\",\"request_sha256\":\"x\",\"replica\":\"r\"}",
            "{\"v\":1,\"type\":\"other\"}",
            "{\"v\":1,\"type\":\"claim\",\"replica\":\"r\"}",
            "{\"v\":1,\"type\":\"release\",\"claim_offset\":\"7\",\"claim_timestamp\":1,\"request_sha256\":\"x\",\"status\":1}"
        }) {
            assertThat(IdempotencyRecord.decode(value.getBytes(StandardCharsets.UTF_8), JSON))
                    .as(value)
                    .isEmpty();
        }
        assertThat(IdempotencyRecord.decode(null, JSON)).isEmpty();
    }
}
