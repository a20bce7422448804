package io.tributary.gateway.produce;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.gateway.problem.Problem;
import io.tributary.gateway.problem.ProblemType;
import io.tributary.gateway.record.Timestamps;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class ProduceResponseTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void writtenResultsComeOutExactlyAsTheMapperWritesThem() {
        Random random = new Random(20261201);
        for (int round = 0; round < 2_000; round++) {
            int n = random.nextInt(round < 10 ? 1 : 120);
            List<ProduceResult> results = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                results.add(written(random));
            }
            ProduceResponse response = new ProduceResponse(results);
            String expected = new String(JSON.writeValueAsBytes(response), StandardCharsets.UTF_8);
            assertThat(new String(response.toJson(JSON), StandardCharsets.UTF_8))
                    .as("round %d", round)
                    .isEqualTo(expected);
        }
    }

    @Test
    void anAnswerWithAProblemGoesThroughTheMapper() {
        Problem problem = Problem.of(ProblemType.INVALID_RECORD, "Record 1: \"value\" is \\ odd.");
        ProduceResponse response = new ProduceResponse(
                List.of(new ProduceResult(0, 7L, "2026-12-01T23:59:59.123Z", null), ProduceResult.failed(problem)));
        assertThat(response.toJson(JSON)).isEqualTo(JSON.writeValueAsBytes(response));
        assertThat(new String(response.toJson(JSON), StandardCharsets.UTF_8)).contains("\\\"value\\\"");
    }

    @Test
    void anEmptyAnswerIsAnEmptyList() {
        assertThat(new String(new ProduceResponse(List.of()).toJson(JSON), StandardCharsets.UTF_8))
                .isEqualTo("{\"results\":[]}");
    }

    private static ProduceResult written(Random random) {
        int partition = random.nextInt(10) == 0 ? Integer.MAX_VALUE : random.nextInt(1000);
        // acks=none knows no offset; a broker may give no timestamp (-1)
        Long offset =
                random.nextInt(8) == 0 ? null : random.nextInt(4) == 0 ? Long.MAX_VALUE : random.nextLong(1L << 40);
        long ms = random.nextInt(8) == 0 ? -1 : random.nextLong(253_402_300_800_000L);
        String timestamp = Timestamps.format(ms).orElse(null);
        return new ProduceResult(partition, offset, timestamp, null);
    }
}
