package io.tributary.broker.api;

import io.tributary.broker.api.ClusterViews.ClientBroker;
import io.tributary.broker.api.ClusterViews.FencedBrokers;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import java.util.Objects;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;

/**
 * DescribeCluster (API key 60), versions 0 to 2: the alive brokers (from v2, also the fenced ones
 * when the client asks, marked {@code is_fenced}), the cluster id and the controller id, as {@link
 * MetadataHandler} reports them: each broker at its endpoint on the listener the request came in on,
 * brokers without one left out. Brokers serve the broker endpoints only: a request for controller
 * endpoints (v1+, {@code endpoint_type} 2) is MISMATCHED_ENDPOINT_TYPE, any other type
 * UNSUPPORTED_ENDPOINT_TYPE, as Kafka's brokers answer.
 *
 * <p>Thread-safety: stateless.
 */
public final class DescribeClusterHandler implements RequestHandler {

    /** Kafka's endpoint types (KIP-919). */
    static final byte BROKER_ENDPOINTS = 1;

    static final byte CONTROLLER_ENDPOINTS = 2;

    private final MetadataView metadata;
    private final AdminApiConfig config;
    private final AccessControl acls;

    /** A handler without an authorizer ({@link AccessControl#OPEN}). */
    public DescribeClusterHandler(MetadataView metadata, AdminApiConfig config) {
        this(metadata, config, AccessControl.OPEN);
    }

    /** @param acls the caller's authorized operations on the cluster, when asked for (DescribeCluster needs no permission) */
    public DescribeClusterHandler(MetadataView metadata, AdminApiConfig config, AccessControl acls) {
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.config = Objects.requireNonNull(config, "config");
        this.acls = Objects.requireNonNull(acls, "acls");
    }

    @Override
    public ApiVersionRange versions() {
        return new ApiVersionRange(
                ApiKeys.DESCRIBE_CLUSTER,
                ApiKeys.DESCRIBE_CLUSTER.oldestVersion(),
                ApiKeys.DESCRIBE_CLUSTER.latestVersion());
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        DescribeClusterRequestData data =
                request.body(DescribeClusterRequest.class).data();
        short version = request.header().apiVersion();
        if (version >= 1 && data.endpointType() != BROKER_ENDPOINTS) {
            Errors error = data.endpointType() == CONTROLLER_ENDPOINTS
                    ? Errors.MISMATCHED_ENDPOINT_TYPE
                    : Errors.UNSUPPORTED_ENDPOINT_TYPE;
            return new DescribeClusterResponse(new DescribeClusterResponseData()
                    .setErrorCode(error.code())
                    .setErrorMessage("a Tributary broker serves broker endpoints (endpoint_type 1) only, not "
                            + data.endpointType())
                    .setEndpointType(data.endpointType())
                    .setClusterId(config.clusterId()));
        }
        ClusterImage image = metadata.image();
        String listener = ClusterViews.listenerOf(request);
        FencedBrokers fenced =
                version >= 2 && data.includeFencedBrokers() ? FencedBrokers.INCLUDE : FencedBrokers.EXCLUDE;
        var response = new DescribeClusterResponseData()
                .setErrorCode(Errors.NONE.code())
                .setEndpointType(BROKER_ENDPOINTS)
                .setClusterId(config.clusterId())
                .setControllerId(ClusterViews.controllerId(image, metadata.brokerId(), listener));
        for (ClientBroker cb : ClusterViews.clientBrokers(image, fenced, listener)) {
            response.brokers()
                    .add(new DescribeClusterBroker()
                            .setBrokerId(cb.broker().id())
                            .setHost(cb.endpoint().host())
                            .setPort(cb.endpoint().port())
                            .setRack(cb.broker().rack())
                            .setIsFenced(cb.broker().fenced()));
        }
        if (data.includeClusterAuthorizedOperations()) {
            response.setClusterAuthorizedOperations(acls.clusterAuthorizedOperations(request.connection()));
        }
        return new DescribeClusterResponse(response);
    }
}
