package io.tributary.gateway.produce;

import java.util.HashMap;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.kafka.clients.producer.Producer;

/**
 * The gateway's shared producers: one per {@link Acks} level and {@link Load}, each created on first
 * use (a gateway that only ever writes single records with {@code acks=all} opens one).
 * {@code KafkaProducer} is thread-safe and batches the records of concurrent requests together;
 * sharing it is what makes it fast. Thread-safe.
 *
 * <p>Requests of one record and requests of many go to different producers so that each gets the
 * batch size that suits it: a batch takes a buffer of {@code batch.size} even for one record, which
 * at a high rate of single-record requests costs latency, while a request of 100 records fills a
 * large batch at once and costs the gateway and the brokers less per byte with it. Every record of one
 * request goes through one producer, so a request's records keep their order.
 */
public final class Producers implements AutoCloseable {

    /** Which kind of request a producer carries. */
    public enum Load {
        /** Requests of one record (and the idempotency log's entries). */
        SINGLE_RECORD,
        /** Requests of more than one record: JSON batches and NDJSON streams. */
        MULTI_RECORD;

        /** The load of a request of {@code records} records. */
        public static Load of(int records) {
            return records > 1 ? MULTI_RECORD : SINGLE_RECORD;
        }
    }

    private record Kind(Acks acks, Load load) {}

    private final BiFunction<Acks, Load, Producer<byte[], byte[]>> factory;
    private final Map<Kind, Producer<byte[], byte[]>> open = new HashMap<>();

    public Producers(BiFunction<Acks, Load, Producer<byte[], byte[]>> factory) {
        this.factory = factory;
    }

    /** The single-record producer for {@code acks}. */
    public Producer<byte[], byte[]> get(Acks acks) {
        return get(acks, Load.SINGLE_RECORD);
    }

    public synchronized Producer<byte[], byte[]> get(Acks acks, Load load) {
        return open.computeIfAbsent(new Kind(acks, load), k -> factory.apply(k.acks(), k.load()));
    }

    @Override
    public synchronized void close() {
        open.values().forEach(Producer::close);
        open.clear();
    }
}
