package io.tributary.common.protocol;

import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.Comparator;
import java.util.Map;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * The one adapter between Tributary and kafka-clients' request and response classes, which are
 * kafka-clients' internal API and move between releases: every use of {@code RequestHeader.parse},
 * {@code AbstractRequest.parseRequest} and {@code AbstractResponse.toSend} is here.
 *
 * <p>Stateless and thread-safe.
 */
public final class KafkaCodec {

    private KafkaCodec() {}

    /** A request as read off the wire: its header, and its body unless the version is unknown. */
    public record Decoded(RequestHeader header, AbstractRequest body) {}

    /**
     * Reads a request frame's payload (the bytes after the length).
     *
     * <p>An ApiVersions request at a version newer than kafka-clients knows decodes as an empty
     * version-0 body that remembers the version asked for, as Kafka's brokers do: the client is
     * answered at v0 with UNSUPPORTED_VERSION and the versions to fall back to.
     *
     * @throws MalformedRequestException when the header or body cannot be read, or the API key or
     *     version is one that kafka-clients cannot parse
     */
    public static Decoded decode(ByteBuffer payload) {
        RequestHeader header;
        try {
            header = RequestHeader.parse(payload);
        } catch (RuntimeException e) {
            throw new MalformedRequestException("unreadable request header: " + e.getMessage(), e);
        }
        ApiKeys apiKey = header.apiKey();
        short version = header.apiVersion();
        if (apiKey == ApiKeys.API_VERSIONS && !apiKey.isVersionSupported(version)) {
            return new Decoded(header, new ApiVersionsRequest(new ApiVersionsRequestData(), (short) 0, version));
        }
        if (!apiKey.isVersionSupported(version)) {
            throw new MalformedRequestException(
                    "%s version %d is not one kafka-clients can parse".formatted(apiKey, version), null);
        }
        try {
            AbstractRequest body =
                    AbstractRequest.parseRequest(apiKey, version, new ByteBufferAccessor(payload)).request;
            return new Decoded(header, body);
        } catch (RuntimeException e) {
            throw new MalformedRequestException(
                    "unreadable %s v%d request body: %s".formatted(apiKey, version, e.getMessage()), e);
        }
    }

    /**
     * The response frame for {@code response}, including its 4-byte length, at the request's
     * version. Records in the response (a fetch's file regions) are written with zero copy where the
     * channel allows it.
     */
    public static Send encode(RequestHeader requestHeader, AbstractResponse response) {
        short version = requestHeader.apiVersion();
        if (requestHeader.apiKey() == ApiKeys.API_VERSIONS && !ApiKeys.API_VERSIONS.isVersionSupported(version)) {
            version = 0;
        }
        return response.toSend(requestHeader.toResponseHeader(), version);
    }

    /** Whether Kafka's protocol says this request gets no response (produce with acks=0). */
    public static boolean expectsResponse(AbstractRequest request) {
        return !(request instanceof ProduceRequest produce && produce.acks() == 0);
    }

    /**
     * The answer to an ApiVersions request: exactly the given ranges, sorted by API key; error
     * UNSUPPORTED_VERSION when the request's own version is one this listener does not speak.
     *
     * <p>One exception, Kafka's own (KAFKA-18659): Produce is advertised from version {@code
     * ApiKeys.PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION} (0) whatever its handler's oldest version,
     * because librdkafka turns compression off for a broker that lacks Produce v0 to v2 in its
     * ApiVersions. Those versions are still refused when sent: kafka-clients cannot parse them,
     * so such a request closes its connection.
     */
    public static ApiVersionsResponse apiVersionsResponse(
            ApiVersionsRequest request, Collection<ApiVersionRange> advertised) {
        var keys = new ApiVersionsResponseData.ApiVersionCollection();
        advertised.stream()
                .sorted(Comparator.comparingInt(range -> range.apiKey().id))
                .forEach(range -> keys.add(new ApiVersionsResponseData.ApiVersion()
                        .setApiKey(range.apiKey().id)
                        .setMinVersion(advertisedMinVersion(range))
                        .setMaxVersion(range.maxVersion())));
        boolean supported = advertised.stream()
                        .anyMatch(range -> range.apiKey() == ApiKeys.API_VERSIONS && range.contains(request.version()))
                && !request.hasUnsupportedRequestVersion();
        var data = new ApiVersionsResponseData()
                .setErrorCode(supported ? Errors.NONE.code() : Errors.UNSUPPORTED_VERSION.code())
                .setThrottleTimeMs(0)
                .setApiKeys(keys);
        return new ApiVersionsResponse(data);
    }

    private static short advertisedMinVersion(ApiVersionRange range) {
        if (range.apiKey() == ApiKeys.PRODUCE) {
            return (short) Math.min(range.minVersion(), ApiKeys.PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION);
        }
        return range.minVersion();
    }

    /**
     * The request's own error response carrying the error code Kafka maps {@code error} to; null for
     * a request that gets no response even when it fails (an acks=0 produce).
     */
    public static AbstractResponse errorResponse(AbstractRequest request, Throwable error) {
        return request.getErrorResponse(error);
    }

    /** The error codes {@code request} failing with {@code error} counts as, also when it gets no response. */
    public static Map<Errors, Integer> errorCounts(AbstractRequest request, Throwable error) {
        return request.errorCounts(error);
    }

    /** The error for a version of an API this listener does not implement. */
    public static UnsupportedVersionException unsupportedVersion(ApiKeys apiKey, short version) {
        return new UnsupportedVersionException("%s v%d is not supported by this listener".formatted(apiKey, version));
    }
}
