package io.tributary.gateway.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class RecordJsonTest {

    private final RecordJson codec = new RecordJson(3, 100);
    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"a\": [1, 2.50, {\"b\": null}]}",
                "1.10",
                "-0",
                "12345678901234567890123",
                "\"h\\u00e9llo \\\"quoted\\\"\"",
                "true",
                "false",
                "[]",
                "{ }"
            })
    void aJsonValueIsStoredAsTheExactBytesSent(String value) {
        OutgoingRecord r = codec.readBody(utf8("{\"value\": " + value + " , \"key\":\"k\"}"))
                .getFirst();

        assertThat(new String(r.value(), StandardCharsets.UTF_8)).isEqualTo(value);
    }

    /** String values are cut from the body by their quotes, not decoded: escapes and UTF-8 stay as sent. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "\"\"",
                "\"\\\\\"",
                "\"a\\\"\"",
                "\"ends with a backslash \\\\\"",
                "\"\\\\\\\"\\\\\"",
                "\"\\u0022 \\/ \\b\\f\\n\\r\\t\"",
                "\"h\u00e9llo \u20ac \ud83d\ude00\""
            })
    void aStringValueIsStoredAsTheExactBytesSentInEveryPosition(String value) {
        for (String body : List.of(
                "{\"value\":" + value + "}",
                "{\"value\":" + value + ",\"key\":\"k\"}",
                "{\"records\":[{\"value\":" + value + "},{\"value\":" + value + " }]}")) {
            List<OutgoingRecord> records = codec.readBody(utf8(body));

            assertThat(records).allSatisfy(r -> assertThat(r.value()).isEqualTo(utf8(value)));
        }
        assertThat(codec.readLine(utf8("{\"value\":" + value + "}"), 0).value()).isEqualTo(utf8(value));
    }

    /** The string is not decoded, but the parser still checks it as it skips it. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"value\":\"abc",
                "{\"value\":\"abc\\\"}",
                "{\"value\":\"a\u0001b\"}",
                "{\"value\":\"line\nbreak\"}",
                "{\"value\":\"bad escape \\x\"}",
                "{\"value\":\"short \\u12\"}",
                "{\"value\":\"abc\" \"def\"}",
                "{\"value\":\"abc\"",
                "{\"records\":[{\"value\":\"abc\"}"
            })
    void aBrokenStringValueIsMalformedJson(String body) {
        assertProblem(() -> codec.readBody(utf8(body)), ProblemType.MALFORMED_JSON);
    }

    @Test
    void aStringValueThatIsNotUtf8IsMalformedJson() {
        byte[] prefix = utf8("{\"value\":\"a");
        byte[] suffix = utf8("b\"}");
        for (byte[] bad : List.of(
                new byte[] {(byte) 0xc3, 0x28},
                new byte[] {(byte) 0xe2, (byte) 0x82},
                new byte[] {(byte) 0x80},
                new byte[] {(byte) 0xf0, (byte) 0x9f, (byte) 0x98})) {
            byte[] body = new byte[prefix.length + bad.length + suffix.length];
            System.arraycopy(prefix, 0, body, 0, prefix.length);
            System.arraycopy(bad, 0, body, prefix.length, bad.length);
            System.arraycopy(suffix, 0, body, prefix.length + bad.length, suffix.length);

            assertProblem(() -> codec.readBody(body), ProblemType.MALFORMED_JSON);
        }
    }

    /** The eight-bytes-at-a-time scan agrees with a byte-by-byte one wherever the quotes and escapes fall. */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void theClosingQuoteAgreesWithAPlainScan(long seed) {
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
        byte[] alphabet = {'a', 'b', '"', '\\', 'u', (byte) 0xc3, (byte) 0xa9, ' '};
        for (int n = 0; n < 5_000; n++) {
            byte[] body = new byte[1 + random.nextInt(40)];
            body[0] = '"';
            for (int i = 1; i < body.length; i++) {
                body[i] = random.nextInt(4) == 0
                        ? alphabet[random.nextInt(alphabet.length)]
                        : (byte) ('c' + random.nextInt(20));
            }
            int expected = -1;
            for (int i = 1; i < body.length; i++) {
                if (body[i] == '"') {
                    expected = i;
                    break;
                }
                if (body[i] == '\\') {
                    i++;
                }
            }
            assertThat(RecordJson.closingQuote(body, 0))
                    .as("seed %d body %d", seed, n)
                    .isEqualTo(expected);
        }
    }

    @Test
    void theClosingQuoteIsFoundPastEscapes() {
        assertThat(RecordJson.closingQuote(utf8("x\"ab\\\"c\\\\\"y"), 1)).isEqualTo(9);
        assertThat(RecordJson.closingQuote(utf8("\"abc\\\""), 0)).isEqualTo(-1);
        assertThat(RecordJson.closingQuote(utf8("\"abc\\"), 0)).isEqualTo(-1);
        assertThat(RecordJson.closingQuote(utf8("abc"), 0)).isEqualTo(-1);
        assertThat(RecordJson.closingQuote(utf8("\""), 1)).isEqualTo(-1);
    }

    @Test
    void aNullValueIsATombstoneAndAnAbsentKeyIsNoKey() {
        OutgoingRecord r = codec.readBody(utf8("{\"value\":null}")).getFirst();

        assertThat(r.value()).isNull();
        assertThat(r.key()).isNull();
    }

    @Test
    void keysHeadersTimestampAndPartitionAreRead() {
        OutgoingRecord r = codec.readBody(
                        utf8(
                                "{\"key\":\"k1\",\"headers\":{\"h\":\"v\",\"n\":null},\"timestamp\":\"2026-11-29T21:00:00.123Z\",\"partition\":2}"))
                .getFirst();

        assertThat(r.key()).isEqualTo(utf8("k1"));
        assertThat(r.headers()).containsExactly(new RecordHeader("h", utf8("v")), new RecordHeader("n", (byte[]) null));
        assertThat(r.timestampMs()).hasValue(1_795_986_000_123L);
        assertThat(r.partition()).hasValue(2);
    }

    @Test
    void epochMillisecondTimestampsAreAccepted() {
        assertThat(codec.readBody(utf8("{\"timestamp\":1795986000123}"))
                        .getFirst()
                        .timestampMs())
                .hasValue(1_795_986_000_123L);
    }

    @Test
    void base64KeysAndValuesAreDecoded() {
        OutgoingRecord r = codec.readBody(utf8("{\"key_b64\":\"AAE=\",\"value_b64\":\"3q2+7w==\"}"))
                .getFirst();

        assertThat(r.key()).containsExactly(0, 1);
        assertThat(r.value()).containsExactly(0xde, 0xad, 0xbe, 0xef);
    }

    @Test
    void aBatchIsReadInOrder() {
        List<OutgoingRecord> records = codec.readBody(utf8("{\"records\":[{\"value\":1},{\"value\":2}]}"));

        assertThat(records)
                .extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
                .containsExactly("1", "2");
    }

    @Test
    void moreRecordsThanTheLimitAreTooManyRecords() {
        assertProblem(() -> codec.readBody(utf8("{\"records\":[{},{},{},{}]}")), ProblemType.TOO_MANY_RECORDS);
    }

    @Test
    void aRecordAboveTheSizeLimitIsTooLargeAndNamesItsIndex() {
        String big = "\"" + "x".repeat(120) + "\"";
        assertThatThrownBy(() -> codec.readBody(utf8("{\"records\":[{},{\"value\":" + big + "}]}")))
                .isInstanceOfSatisfying(ProblemException.class, e -> {
                    assertThat(e.type()).isEqualTo(ProblemType.RECORD_TOO_LARGE);
                    assertThat(e.extensions()).containsEntry("index", 1);
                });
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"value\":1,\"value_b64\":\"AA==\"}",
                "{\"key\":\"a\",\"key_b64\":\"AA==\"}",
                "{\"colour\":\"red\"}",
                "{\"key\":7}",
                "{\"value_b64\":\"not base64!\"}",
                "{\"timestamp\":\"yesterday\"}",
                "{\"timestamp\":-5}",
                "{\"partition\":-1}",
                "{\"partition\":1.5}",
                "{\"headers\":{\"h\":1}}",
                "{\"headers\":[]}",
                "{\"records\":[1]}"
            })
    void recordsThatBreakTheSchemaAreInvalidRecords(String body) {
        assertProblem(() -> codec.readBody(utf8(body)), ProblemType.INVALID_RECORD);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "{", "{\"value\":}", "not json", "{\"value\":1} {}", "{\"value\":1}x"})
    void bodiesThatAreNotJsonAreMalformedJson(String body) {
        assertProblem(() -> codec.readBody(utf8(body)), ProblemType.MALFORMED_JSON);
    }

    @Test
    void aBodyThatIsNotAnObjectIsAnInvalidRecord() {
        assertProblem(() -> codec.readBody(utf8("[1,2]")), ProblemType.INVALID_RECORD);
    }

    @Test
    void anNdjsonLineIsOneRecord() {
        OutgoingRecord r = codec.readLine(utf8("{\"key\":\"a\",\"value\":{\"n\":1}}"), 4);

        assertThat(new String(r.value(), StandardCharsets.UTF_8)).isEqualTo("{\"n\":1}");
        assertThatThrownBy(() -> codec.readLine(utf8("{\"x\":1}"), 4))
                .isInstanceOfSatisfying(
                        ProblemException.class, e -> assertThat(e.extensions()).containsEntry("index", 4));
    }

    @Test
    void aConsumedJsonValueIsWrittenAsJsonOnOneLine() {
        String line = consumedLine(utf8("k"), utf8("{\"a\":\n [1,\r\n 2.50]}"));
        JsonNode out = MAPPER.readTree(line);

        assertThat(line).contains("\"value\":{\"a\":  [1,   2.50]}");
        assertThat(out.get("key").asString()).isEqualTo("k");
        assertThat(out.get("topic").asString()).isEqualTo("t");
        assertThat(out.get("partition").asInt()).isEqualTo(3);
        assertThat(out.get("offset").asLong()).isEqualTo(42);
        assertThat(out.get("timestamp").asString()).isEqualTo("2026-11-29T21:00:00.123Z");
        assertThat(out.get("headers").get("h").asString()).isEqualTo("v");
    }

    @ParameterizedTest
    @ValueSource(strings = {"hello", "1 2", "{\"a\":1", "", "[1,]", "null"})
    void aConsumedValueThatIsNotJsonIsWrittenAsBase64(String value) {
        JsonNode out = consumed(null, utf8(value));

        assertThat(out.has("value")).isFalse();
        assertThat(Base64.getDecoder().decode(out.get("value_b64").asString())).isEqualTo(utf8(value));
        assertThat(out.get("key").isNull()).isTrue();
    }

    @Test
    void aKeyThatIsNotUtf8IsWrittenAsBase64() {
        JsonNode out = consumed(new byte[] {(byte) 0xff, 0}, null);

        assertThat(out.has("key")).isFalse();
        assertThat(out.get("key_b64").asString()).isEqualTo("/wA=");
        assertThat(out.get("value").isNull()).isTrue();
    }

    @Test
    void aConsumedTombstoneIsANullValueFlaggedTombstone() {
        String line = consumedLine(utf8("k"), null);

        assertThat(line)
                .isEqualTo("{\"topic\":\"t\",\"partition\":3,\"offset\":42,\"timestamp\":\"2026-11-29T21:00:00.123Z\","
                        + "\"key\":\"k\",\"value\":null,\"tombstone\":true,\"headers\":{\"h\":\"v\"}}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "null", "{}"})
    void aConsumedRecordWithAValueHasNoTombstoneField(String value) {
        JsonNode out = consumed(utf8("k"), utf8(value));

        assertThat(out.has("tombstone")).isFalse();
    }

    @Test
    void aDeletedRecordIsWrittenWithoutAValue() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JsonFactory.builder().build().createGenerator(ObjectWriteContext.empty(), out)) {
            RecordJson.writeDeleted(g, consumerRecord(new byte[] {(byte) 0xff, 0}, null));
        }

        assertThat(out.toString(StandardCharsets.UTF_8))
                .isEqualTo("{\"topic\":\"t\",\"partition\":3,\"offset\":42,\"timestamp\":\"2026-11-29T21:00:00.123Z\","
                        + "\"key_b64\":\"/wA=\",\"headers\":{\"h\":\"v\"}}");
    }

    @Test
    void onlyATombstoneIsWrittenAsDeleted() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JsonFactory.builder().build().createGenerator(ObjectWriteContext.empty(), out)) {
            assertThatThrownBy(() -> RecordJson.writeDeleted(g, consumerRecord(utf8("k"), new byte[0])))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not a tombstone");
        }
    }

    /**
     * Any bytes produced as {@code value_b64} and read back give the same bytes, and a JSON value
     * written out and produced again is stored unchanged: the codec loses nothing, either way.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
    void everyByteSequenceRoundTrips(long seed) {
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
        for (int i = 0; i < 200; i++) {
            byte[] bytes = new byte[random.nextInt(0, 40)];
            if (random.nextBoolean()) {
                random.nextBytes(bytes);
            } else {
                String json = randomJson(random, 3);
                bytes = utf8(json);
            }
            RecordJson roomy = new RecordJson(10, 10_000);
            OutgoingRecord in = roomy.readBody(
                            utf8("{\"value_b64\":\"" + Base64.getEncoder().encodeToString(bytes) + "\"}"))
                    .getFirst();
            JsonNode out = consumed(null, in.value());
            byte[] back;
            if (out.has("value_b64")) {
                back = Base64.getDecoder().decode(out.get("value_b64").asString());
            } else {
                back = roomy.readBody(utf8("{\"value\":" + out.get("value").toString() + "}"))
                        .getFirst()
                        .value();
                // valid JSON is written compactly by the test's mapper: compare as JSON
                assertThat(MAPPER.readTree(back))
                        .as("seed %d, case %d", seed, i)
                        .isEqualTo(MAPPER.readTree(bytes));
                continue;
            }
            assertThat(back).as("seed %d, case %d", seed, i).isEqualTo(bytes);
        }
    }

    private static String randomJson(RandomGenerator random, int depth) {
        int kind = random.nextInt(depth <= 0 ? 4 : 6);
        return switch (kind) {
            case 0 -> Long.toString(random.nextLong());
            case 1 -> "\"s" + random.nextInt(1000) + "\\n\"";
            case 2 -> random.nextBoolean() ? "true" : "null";
            case 3 -> random.nextInt(100) + "." + random.nextInt(1000) + "0";
            case 4 -> "[" + randomJson(random, depth - 1) + " ,\n" + randomJson(random, depth - 1) + "]";
            default -> "{\"k\": " + randomJson(random, depth - 1) + "}";
        };
    }

    private static JsonNode consumed(byte[] key, byte[] value) {
        return MAPPER.readTree(consumedLine(key, value));
    }

    private static String consumedLine(byte[] key, byte[] value) {
        ConsumerRecord<byte[], byte[]> record = consumerRecord(key, value);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JsonFactory.builder().build().createGenerator(ObjectWriteContext.empty(), out)) {
            RecordJson.writeConsumed(g, record);
        }
        String line = out.toString(StandardCharsets.UTF_8);
        assertThat(line).doesNotContain("\n").doesNotContain("\r");
        return line;
    }

    private static ConsumerRecord<byte[], byte[]> consumerRecord(byte[] key, byte[] value) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("h", utf8("v"));
        return new ConsumerRecord<>(
                "t",
                3,
                42,
                1_795_986_000_123L,
                TimestampType.CREATE_TIME,
                key == null ? -1 : key.length,
                value == null ? -1 : value.length,
                key,
                value,
                headers,
                Optional.empty());
    }

    private static void assertProblem(Runnable call, ProblemType type) {
        assertThatThrownBy(call::run)
                .isInstanceOfSatisfying(
                        ProblemException.class, e -> assertThat(e.type()).isEqualTo(type));
    }
}
