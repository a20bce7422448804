package io.tributary.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link JsonText}, the writer of {@code bin/bench-gateway}'s raw results and the chaos histories, read
 * back by a real JSON parser (Jackson): what {@code bin/bench-ratios} reads must be what the
 * generator measured.
 */
class JsonTextTest {

    private static final JsonMapper JSON = new JsonMapper();

    @Test
    void nestedValuesReadBackAsWritten() {
        var inner = new LinkedHashMap<String, Object>();
        inner.put("mb_per_s", 290.70408163265307);
        inner.put("records", 297_704L);
        inner.put("complete", true);
        inner.put("first_failure", null);
        var results = new LinkedHashMap<String, Object>();
        results.put("http_batch", inner);
        results.put("streams", List.of(1, 100, 1000));
        results.put("empty", Map.of());

        JsonNode read = JSON.readTree(JsonText.write(results));

        assertThat(read.get("http_batch").get("mb_per_s").doubleValue()).isEqualTo(290.70408163265307);
        assertThat(read.get("http_batch").get("records").longValue()).isEqualTo(297_704L);
        assertThat(read.get("http_batch").get("complete").booleanValue()).isTrue();
        assertThat(read.get("http_batch").get("first_failure").isNull()).isTrue();
        assertThat(read.get("streams").toString()).isEqualTo("[1,100,1000]");
        assertThat(read.get("empty").isEmpty()).isTrue();
        assertThat(read.propertyNames()).containsExactly("http_batch", "streams", "empty");
    }

    @Test
    void everyCharacterOfAStringSurvives() {
        var text = new StringBuilder("quote \" backslash \\ tab \t newline \n é ✓ ");
        for (char c = 0; c < 0x20; c++) {
            text.append(c);
        }

        JsonNode read = JSON.readTree(JsonText.write(Map.of("failure", text.toString())));

        assertThat(read.get("failure").stringValue()).isEqualTo(text.toString());
    }

    @Test
    void aNumberThatIsNotFiniteIsWrittenAsNull() {
        JsonNode read = JSON.readTree(JsonText.write(Arrays.asList(Double.NaN, Double.POSITIVE_INFINITY, 1.5)));

        assertThat(read.get(0).isNull()).isTrue();
        assertThat(read.get(1).isNull()).isTrue();
        assertThat(read.get(2).doubleValue()).isEqualTo(1.5);
    }

    @Test
    void aValueJsonCannotCarryIsRefused() {
        assertThatThrownBy(() -> JsonText.write(Map.of("when", new Object())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a JSON value");
        assertThatThrownBy(() -> JsonText.write(Map.of(1, "one")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keys are strings");
    }
}
