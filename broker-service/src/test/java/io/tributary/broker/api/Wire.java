package io.tributary.broker.api;

import io.tributary.common.protocol.ConnectionInfo;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Calls a handler as the listener would, through kafka-clients' codec at one version: the request is
 * serialized and parsed back (so fields a version does not carry are lost, as on the wire), and so is
 * the response (so a response a version cannot encode fails the test).
 */
final class Wire {

    private static final String DEFAULT_LISTENER = "test";

    private Wire() {}

    @SuppressWarnings("unchecked")
    static <R extends AbstractResponse> R call(
            RequestHandler handler, AbstractRequest.Builder<?> builder, int version) {
        return call(handler, builder.build((short) version));
    }

    /** As {@link #call(RequestHandler, AbstractRequest.Builder, int)}, for a request built at its version. */
    @SuppressWarnings("unchecked")
    static <R extends AbstractResponse> R call(RequestHandler handler, AbstractRequest built) {
        return callOn(DEFAULT_LISTENER, handler, built);
    }

    /** As {@link #call(RequestHandler, AbstractRequest.Builder, int)}, on the listener named {@code listener}. */
    static <R extends AbstractResponse> R callOn(
            String listener, RequestHandler handler, AbstractRequest.Builder<?> builder, int version) {
        return callOn(listener, handler, builder.build((short) version));
    }

    @SuppressWarnings("unchecked")
    private static <R extends AbstractResponse> R callOn(
            String listener, RequestHandler handler, AbstractRequest built) {
        short v = built.version();
        ApiKeys api = built.apiKey();
        if (!handler.versions().contains(v)) {
            throw new AssertionError(api + " v" + v + " is not advertised by "
                    + handler.getClass().getSimpleName());
        }
        AbstractRequest parsed = AbstractRequest.parseRequest(api, v, built.serialize()).request;
        var connection = new ConnectionInfo("test-connection", new InetSocketAddress("127.0.0.1", 40000), listener);
        var request = new KafkaRequest(new RequestHeader(api, v, "test-client", 7), parsed, connection);
        AbstractResponse response = handler.handle(request);
        // toByteBufferAccessor hands back a buffer ready to read
        ByteBuffer bytes = MessageUtil.toByteBufferAccessor(response.data(), v).buffer();
        return (R) AbstractResponse.parseResponse(api, new ByteBufferAccessor(bytes), v);
    }
}
