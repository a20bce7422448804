package io.tributary.broker.api;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.CoordinatorGroupsClient;
import io.tributary.broker.cluster.GroupCoordinatorLocator;
import io.tributary.broker.cluster.GroupCoordinatorLocator.Lookup;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.ConnectionInfo;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ListGroups (API key 16), versions 0 to 5, on a broker: the groups live on the coordinators (the
 * Raft leader is every group's coordinator), yet kafka-clients' AdminClient ({@code listGroups},
 * {@code listConsumerGroups}, {@code kafka-consumer-groups.sh --list}) sends ListGroups to every
 * broker in the metadata and merges the answers, because in Kafka each broker coordinates its own
 * share of the groups.
 *
 * <p><b>Design: one broker answers.</b> The broker with the lowest id among the alive brokers of its
 * cluster image (the brokers Metadata lists) forwards the request, filters included, to the
 * coordinator leader's Kafka listener ({@link CoordinatorGroupsClient}, bounded) and returns its
 * answer; every other broker answers an empty list. So a client that merges per-broker lists sees
 * each group once whether or not it de-duplicates (kafka-clients 4.4 does, by group id; older clients
 * and other libraries may not), and the coordinator gets one request per listing, not one per broker.
 * The cost: while brokers' images disagree about who is alive (a second or so around a broker
 * joining or leaving), two brokers may both answer (harmless for clients that de-duplicate) or
 * briefly none (an empty listing).
 *
 * <p>Errors, all retriable COORDINATOR_NOT_AVAILABLE (the AdminClient retries it until its
 * timeout): no coordinator known, the coordinator unreachable or not answering within the client's
 * bound, or the coordinator answering NOT_COORDINATOR (leadership moved; the cached location is
 * dropped). Any other error of the coordinator is passed on as it is.
 *
 * <p>Authorization (with an authorizer), as Kafka's: never an error; a caller with DESCRIBE on the
 * cluster gets every group, any other only the groups it may DESCRIBE (the others are left out,
 * without an audit line each).
 *
 * <p>Thread-safety: immutable; the collaborators are thread-safe. A forward blocks the calling
 * connection's thread for at most the client's connect and read timeouts.
 */
public final class ListGroupsHandler implements RequestHandler {

    private static final Logger log = LoggerFactory.getLogger(ListGroupsHandler.class);

    private final MetadataView metadata;
    private final GroupCoordinatorLocator locator;
    private final CoordinatorGroupsClient client;
    private final AccessControl acls;

    /** A handler without an authorizer ({@link AccessControl#OPEN}). */
    public ListGroupsHandler(MetadataView metadata, GroupCoordinatorLocator locator, CoordinatorGroupsClient client) {
        this(metadata, locator, client, AccessControl.OPEN);
    }

    /** @param acls which groups the caller sees: all with DESCRIBE on the cluster, else those it may DESCRIBE */
    public ListGroupsHandler(
            MetadataView metadata,
            GroupCoordinatorLocator locator,
            CoordinatorGroupsClient client,
            AccessControl acls) {
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.locator = Objects.requireNonNull(locator, "locator");
        this.client = Objects.requireNonNull(client, "client");
        this.acls = Objects.requireNonNull(acls, "acls");
    }

    @Override
    public ApiVersionRange versions() {
        return new ApiVersionRange(
                ApiKeys.LIST_GROUPS, ApiKeys.LIST_GROUPS.oldestVersion(), ApiKeys.LIST_GROUPS.latestVersion());
    }

    /**
     * The broker that answers with the groups: the lowest alive broker id of the image with an
     * endpoint on {@code listener} (the brokers a client of that listener knows and asks), if any.
     */
    static Optional<Integer> answeringBroker(ClusterImage image, String listener) {
        return ClusterViews.aliveBrokerIds(image, listener).stream().min(Integer::compare);
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        ListGroupsRequestData data = request.body(ListGroupsRequest.class).data();
        short version = request.header().apiVersion();
        if (!answeringBroker(metadata.image(), ClusterViews.listenerOf(request))
                .equals(Optional.of(metadata.brokerId()))) {
            return new ListGroupsResponse(new ListGroupsResponseData().setErrorCode(Errors.NONE.code()));
        }
        return switch (locator.lookup()) {
            case Lookup.NotAvailable missing -> notAvailable();
            case Lookup.Found found -> {
                try {
                    ListGroupsResponse answer = client.listGroups(found.coordinator(), data.duplicate(), version);
                    if (answer.data().errorCode() == Errors.NOT_COORDINATOR.code()) {
                        locator.invalidate();
                        yield notAvailable();
                    }
                    yield new ListGroupsResponse(
                            visible(answer.data(), request.connection()).setThrottleTimeMs(0));
                } catch (IOException e) {
                    log.debug("ListGroups forwarded to {} failed: {}", found.coordinator(), e.getMessage());
                    locator.invalidate();
                    yield notAvailable();
                }
            }
        };
    }

    /** {@code listed} with only the groups the caller may see. */
    private ListGroupsResponseData visible(ListGroupsResponseData listed, ConnectionInfo caller) {
        if (acls.allowedQuietly(caller, AclOperation.DESCRIBE, AclResourceType.CLUSTER, AclResourceType.CLUSTER_NAME)) {
            return listed;
        }
        return listed.setGroups(listed.groups().stream()
                .filter(g -> acls.allowedQuietly(caller, AclOperation.DESCRIBE, AclResourceType.GROUP, g.groupId()))
                .collect(Collectors.toCollection(ArrayList::new)));
    }

    private static ListGroupsResponse notAvailable() {
        return new ListGroupsResponse(
                new ListGroupsResponseData().setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code()));
    }
}
