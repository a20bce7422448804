package io.tributary.common.protocol;

import org.apache.kafka.common.requests.AbstractResponse;

/**
 * Serves one Kafka API. Registered with {@link KafkaProtocolServer}; what it returns from {@link
 * #versions()} is what ApiVersions advertises for its API.
 *
 * <p>Thread-safety: {@link #handle} is called concurrently from many connections' threads (virtual
 * or platform, {@link ProtocolServerConfig.ConnectionThreads}),
 * and may block (a long-poll fetch parks its connection's thread, nothing else).
 */
public interface RequestHandler {

    /** The API and the versions of it this handler implements. */
    ApiVersionRange versions();

    /**
     * Serves one request whose version is within {@link #versions()}.
     *
     * <p>An exception thrown here is answered with the request's own error response, carrying the
     * error code Kafka maps the exception to ({@code UNKNOWN_SERVER_ERROR} for anything it does not
     * know), and logged.
     *
     * @return the response, at the request's version
     */
    AbstractResponse handle(KafkaRequest request);
}
