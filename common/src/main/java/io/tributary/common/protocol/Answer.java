package io.tributary.common.protocol;

import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * What a request gets from {@link KafkaProtocolServer}'s dispatch: its response, and the error codes
 * to count for it. The response is null only for a failed request that Kafka answers with nothing
 * at all (an acks=0 produce).
 */
record Answer(AbstractResponse response, Map<Errors, Integer> errorCounts) {

    static Answer of(AbstractResponse response) {
        return new Answer(response, response.errorCounts());
    }

    static Answer failed(AbstractRequest request, Throwable error) {
        AbstractResponse response = KafkaCodec.errorResponse(request, error);
        return response == null
                ? new Answer(null, KafkaCodec.errorCounts(request, error))
                : new Answer(response, response.errorCounts());
    }
}
