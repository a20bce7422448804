package io.tributary.gateway.produce;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.clients.producer.Producer;

/**
 * One shared producer per {@link Acks} level, created on first use (a gateway that only ever writes
 * with {@code acks=all} opens one). {@code KafkaProducer} is thread-safe and batches the records of
 * concurrent requests together; sharing it is what makes it fast. Thread-safe.
 */
public final class Producers implements AutoCloseable {

    private final Function<Acks, Producer<byte[], byte[]>> factory;
    private final Map<Acks, Producer<byte[], byte[]>> open = new EnumMap<>(Acks.class);

    public Producers(Function<Acks, Producer<byte[], byte[]>> factory) {
        this.factory = factory;
    }

    public synchronized Producer<byte[], byte[]> get(Acks acks) {
        return open.computeIfAbsent(acks, factory);
    }

    @Override
    public synchronized void close() {
        open.values().forEach(Producer::close);
        open.clear();
    }
}
