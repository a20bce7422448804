package io.tributary.common.protocol;

import java.util.Objects;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One decoded request, as a handler sees it.
 *
 * @param header the request header (API key, version, correlation id, client id)
 * @param body the request body, an instance of the kafka-clients request class of {@code header.apiKey()}
 * @param connection the connection it arrived on
 */
public record KafkaRequest(RequestHeader header, AbstractRequest body, ConnectionInfo connection) {

    public KafkaRequest {
        Objects.requireNonNull(header, "header");
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(connection, "connection");
    }

    /** The name of the listener the request came in on ({@link ConnectionInfo#listener()}). */
    public String listener() {
        return connection.listener();
    }

    /** The body as the request class its API key implies; a mismatch is a programmer error. */
    public <T extends AbstractRequest> T body(Class<T> type) {
        return type.cast(body);
    }
}
