package io.tributary.broker.quota;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.protocol.RequestWaits;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * Any request under {@code request_percentage} ({@link RequestTimeQuota}): the handler answers, the
 * time it worked on the request ({@link RequestWaits}) is recorded for the caller's (user, client
 * id), and the throttle that earned goes in the answer's {@code throttle_time_ms} when it is longer
 * than the one the answer has (a byte-rate throttle: Kafka throttles by the longer of the two); the
 * listener mutes the connection for that long.
 *
 * <p>As Kafka, a Fetch throttled for its request time is answered empty (no partitions, no error)
 * and the record bytes its answer had are taken back from {@code consumer_byte_rate}; requests
 * between brokers are exempt: APIs Kafka reserves for cluster actions and replica fetches (replica
 * id 0 or more). ApiVersions and the SASL exchange, which the listener answers itself, are not
 * measured (Kafka measures them).
 *
 * <p>Thread-safety: thread-safe.
 */
public final class RequestTimeThrottle implements RequestHandler {

    private final RequestHandler handler;
    private final RequestTimeQuota quota;
    private final ByteRateQuota fetchQuota;

    /**
     * @param fetchQuota the {@code consumer_byte_rate} quota a throttled Fetch's bytes are taken back
     *     from
     */
    public RequestTimeThrottle(RequestHandler handler, RequestTimeQuota quota, ByteRateQuota fetchQuota) {
        this.handler = Objects.requireNonNull(handler, "handler");
        this.quota = Objects.requireNonNull(quota, "quota");
        this.fetchQuota = Objects.requireNonNull(fetchQuota, "fetchQuota");
    }

    /** {@code handlers}, each behind its own throttle. */
    public static List<RequestHandler> wrap(
            List<RequestHandler> handlers, RequestTimeQuota quota, ByteRateQuota fetchQuota) {
        return handlers.stream()
                .map(h -> (RequestHandler) new RequestTimeThrottle(h, quota, fetchQuota))
                .toList();
    }

    @Override
    public ApiVersionRange versions() {
        return handler.versions();
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        if (exempt(request)) {
            return handler.handle(request);
        }
        RequestWaits.Measured<AbstractResponse> measured = RequestWaits.measure(() -> handler.handle(request));
        AbstractResponse response = measured.result();
        String user = request.connection().principal().name();
        String clientId = ProduceThrottle.clientId(request);
        long throttleMs = quota.recordAndGetThrottleMs(user, clientId, measured.workedNanos());
        if (throttleMs <= response.throttleTimeMs()) {
            return response;
        }
        if (response instanceof FetchResponse fetched && response.throttleTimeMs() == 0) {
            long bytes = 0;
            for (FetchResponseData.FetchableTopicResponse t : fetched.data().responses()) {
                for (FetchResponseData.PartitionData p : t.partitions()) {
                    bytes += FetchResponse.recordsSize(p);
                }
            }
            fetchQuota.unrecord(user, clientId, bytes);
            return FetchResponse.of(
                    Errors.NONE, (int) throttleMs, FetchMetadata.INVALID_SESSION_ID, new LinkedHashMap<>(), List.of());
        }
        response.maybeSetThrottleTimeMs((int) throttleMs);
        return response;
    }

    private static boolean exempt(KafkaRequest request) {
        ApiKeys api = request.header().apiKey();
        if (api.clusterAction) {
            return true;
        }
        return api == ApiKeys.FETCH && request.body(FetchRequest.class).replicaId() >= 0;
    }
}
