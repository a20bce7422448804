package io.tributary.gateway.testing;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Consumers of the tests' own on the run's broker ({@link SharedKafka}): bytes, no group, no commits. */
public final class TestConsumers {

    private TestConsumers() {}

    /** A consumer of key and value bytes, with {@code extra} consumer configs on top. */
    public static KafkaConsumer<byte[], byte[]> bytes(Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", SharedKafka.bootstrapServers());
        config.put("key.deserializer", ByteArrayDeserializer.class);
        config.put("value.deserializer", ByteArrayDeserializer.class);
        config.put("enable.auto.commit", false);
        config.putAll(extra);
        return new KafkaConsumer<>(config);
    }
}
