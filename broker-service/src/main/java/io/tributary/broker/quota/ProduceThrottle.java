package io.tributary.broker.quota;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import java.util.Objects;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ProduceRequest;

/**
 * Produce under {@code producer_byte_rate}: the produce handler answers, then the request's record
 * bytes are recorded for the caller's (user, client id) ({@link ByteRateQuota}) and the throttle it
 * earned goes in the answer's {@code throttle_time_ms}; the listener mutes the connection for that
 * long. As Kafka, the request is served whatever its throttle (an acks=0 produce too: its
 * connection is muted all the same). Kafka records the whole request's size; Tributary records its
 * record batches' bytes, a few dozen bytes less per request.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class ProduceThrottle implements RequestHandler {

    private final RequestHandler produce;
    private final ByteRateQuota quota;

    public ProduceThrottle(RequestHandler produce, ByteRateQuota quota) {
        this.produce = Objects.requireNonNull(produce, "produce");
        this.quota = Objects.requireNonNull(quota, "quota");
    }

    @Override
    public ApiVersionRange versions() {
        return produce.versions();
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        AbstractResponse response = produce.handle(request);
        long bytes = 0;
        for (ProduceRequestData.TopicProduceData t :
                request.body(ProduceRequest.class).data().topicData()) {
            for (ProduceRequestData.PartitionProduceData p : t.partitionData()) {
                BaseRecords records = p.records();
                bytes += records == null ? 0 : records.sizeInBytes();
            }
        }
        long throttleMs =
                quota.recordAndGetThrottleMs(request.connection().principal().name(), clientId(request), bytes);
        if (throttleMs > 0) {
            response.maybeSetThrottleTimeMs((int) throttleMs);
        }
        return response;
    }

    static String clientId(KafkaRequest request) {
        String clientId = request.header().clientId();
        return clientId == null ? "" : clientId;
    }
}
