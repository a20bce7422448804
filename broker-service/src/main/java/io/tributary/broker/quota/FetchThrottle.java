package io.tributary.broker.quota;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * A consumer's Fetch under {@code consumer_byte_rate}, as Kafka's: the request's {@code max_bytes}
 * is lowered to what the quota allows in its window ({@link ByteRateQuota#maxBytesInWindow}), the
 * fetch handler answers, the
 * answer's record bytes are recorded for the caller's (user, client id) ({@link ByteRateQuota}),
 * and when that earned a throttle the records are not sent: the bytes are taken back and the answer
 * is an empty one (no error, no partitions) with {@code throttle_time_ms}; the listener mutes the
 * connection for that long. Replica fetches (replica id 0 or more) pass through unmeasured. Kafka
 * measures the whole answer's size; Tributary its records' bytes.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class FetchThrottle implements RequestHandler {

    private final RequestHandler fetch;
    private final ByteRateQuota quota;

    public FetchThrottle(RequestHandler fetch, ByteRateQuota quota) {
        this.fetch = Objects.requireNonNull(fetch, "fetch");
        this.quota = Objects.requireNonNull(quota, "quota");
    }

    @Override
    public ApiVersionRange versions() {
        return fetch.versions();
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        FetchRequest body = request.body(FetchRequest.class);
        if (body.replicaId() >= 0) {
            return fetch.handle(request);
        }
        String user = request.connection().principal().name();
        String clientId = ProduceThrottle.clientId(request);
        long windowBytes = quota.maxBytesInWindow(user, clientId);
        if (windowBytes < body.data().maxBytes()) {
            body.data().setMaxBytes((int) Math.max(1, windowBytes));
        }
        AbstractResponse response = fetch.handle(request);
        if (!(response instanceof FetchResponse answer)) {
            return response;
        }
        long bytes = 0;
        for (FetchResponseData.FetchableTopicResponse t : answer.data().responses()) {
            for (FetchResponseData.PartitionData p : t.partitions()) {
                bytes += FetchResponse.recordsSize(p);
            }
        }
        long throttleMs = quota.recordAndGetThrottleMs(user, clientId, bytes);
        if (throttleMs == 0) {
            return response;
        }
        quota.unrecord(user, clientId, bytes);
        return FetchResponse.of(
                Errors.NONE, (int) throttleMs, FetchMetadata.INVALID_SESSION_ID, new LinkedHashMap<>(), List.of());
    }
}
