package io.tributary.broker.api;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.CoordinatorGroupsClient;
import io.tributary.broker.cluster.GroupCoordinatorLocator;
import io.tributary.broker.cluster.GroupCoordinatorLocator.Lookup;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One group API on a broker, forwarded as it is to the group coordinator (the coordinators' Raft
 * leader's Kafka listener): FindCoordinator on a broker names the broker itself ({@link
 * FindCoordinatorHandler}), so consumers and admin clients send their group requests here.
 *
 * <p>The forwarded APIs and versions ({@link #FORWARDED}) are the coordinator's group handlers'
 * (kept equal to {@code io.tributary.coordinator.kafka.*Handler.VERSIONS}: the KIP-848 consumer
 * group's {@code ConsumerGroupHeartbeatHandler} and {@code ConsumerGroupDescribeHandler}, the classic
 * group protocol's {@code JoinGroupHandler}, {@code SyncGroupHandler}, {@code HeartbeatHandler} and
 * {@code LeaveGroupHandler}, the streams groups' (KIP-1071) {@code StreamsGroupHeartbeatHandler} and
 * {@code StreamsGroupDescribeHandler}, and the offset and admin handlers); ListGroups has its own handler
 * ({@link ListGroupsHandler}: one broker answers).
 *
 * <p>JoinGroup and SyncGroup are long polls on the coordinator (answered when the rebalance
 * completes, or when the group leader's SyncGroup came): they are given their rebalance wait on top
 * of the client's read timeout ({@link CoordinatorGroupsClient#readTimeout}), so a rebalance of
 * minutes is not cut off after seconds. The forward holds its own socket to the coordinator and the
 * calling connection's virtual thread for that whole wait (cheap: both sit idle in a blocking read).
 *
 * <p>Errors: no coordinator known, or the coordinator unreachable or not answering within the
 * client's bound: the request's own error response with COORDINATOR_NOT_AVAILABLE (retriable:
 * clients look the coordinator up again and retry), and the cached location is dropped. That is
 * kafka-clients' {@code getErrorResponse}, as Kafka's brokers answer: a JoinGroup's carries no
 * member id or generation (the member keeps its own and joins again), a LeaveGroup's (v3+ too)
 * only the top-level error and no per-member results (kafka-clients reads the top-level error
 * first). An answer with NOT_COORDINATOR (leadership moved) is passed on as it is (clients look the
 * coordinator up again) and the cached location is dropped. Any other answer is passed on as it is.
 *
 * <p>Authorization: the per-item checks Kafka makes before calling its group coordinator are made
 * here, on the caller's principal ({@link GroupAccess}); the coordinator sees only this broker.
 *
 * <p>Thread-safety: immutable; the collaborators are thread-safe. A forward blocks the calling
 * connection's thread for at most the client's connect timeout and the request's read timeout
 * (twice, when a reused connection turns out closed): seconds, or a JoinGroup's or SyncGroup's
 * rebalance wait.
 */
public final class GroupForwardingHandler implements RequestHandler {

    /** The group APIs a broker forwards, at the versions the coordinator serves. */
    public static final List<ApiVersionRange> FORWARDED = List.of(
            ApiVersionRange.of(ApiKeys.CONSUMER_GROUP_HEARTBEAT, 0, 1),
            ApiVersionRange.of(ApiKeys.CONSUMER_GROUP_DESCRIBE, 0, 1),
            ApiVersionRange.of(ApiKeys.OFFSET_COMMIT, 2, 10),
            ApiVersionRange.of(ApiKeys.OFFSET_FETCH, 1, 10),
            ApiVersionRange.of(ApiKeys.DESCRIBE_GROUPS, 0, 6),
            ApiVersionRange.of(ApiKeys.DELETE_GROUPS, 0, 3),
            ApiVersionRange.of(ApiKeys.OFFSET_DELETE, 0, 0),
            ApiVersionRange.of(ApiKeys.JOIN_GROUP, 0, 9),
            ApiVersionRange.of(ApiKeys.SYNC_GROUP, 0, 5),
            ApiVersionRange.of(ApiKeys.HEARTBEAT, 0, 4),
            ApiVersionRange.of(ApiKeys.LEAVE_GROUP, 0, 5),
            ApiVersionRange.of(ApiKeys.STREAMS_GROUP_HEARTBEAT, 0, 1),
            ApiVersionRange.of(ApiKeys.STREAMS_GROUP_DESCRIBE, 0, 1));

    private static final Logger log = LoggerFactory.getLogger(GroupForwardingHandler.class);

    private final ApiVersionRange versions;
    private final GroupCoordinatorLocator locator;
    private final CoordinatorGroupsClient client;
    private final GroupAccess access;

    /** A forwarding handler without an authorizer. */
    public GroupForwardingHandler(
            ApiVersionRange versions, GroupCoordinatorLocator locator, CoordinatorGroupsClient client) {
        this(versions, locator, client, new GroupAccess(AccessControl.OPEN, () -> ClusterImage.EMPTY));
    }

    GroupForwardingHandler(
            ApiVersionRange versions,
            GroupCoordinatorLocator locator,
            CoordinatorGroupsClient client,
            GroupAccess access) {
        this.versions = Objects.requireNonNull(versions, "versions");
        this.locator = Objects.requireNonNull(locator, "locator");
        this.client = Objects.requireNonNull(client, "client");
        this.access = Objects.requireNonNull(access, "access");
    }

    /** A forwarding handler for each of {@link #FORWARDED}, without an authorizer. */
    public static List<GroupForwardingHandler> all(GroupCoordinatorLocator locator, CoordinatorGroupsClient client) {
        return all(locator, client, AccessControl.OPEN, () -> ClusterImage.EMPTY);
    }

    /**
     * A forwarding handler for each of {@link #FORWARDED}, making the per-item ACL checks of {@link
     * GroupAccess} with {@code acls} ({@code image}: the topic names behind OffsetCommit's and
     * OffsetFetch's topic ids).
     */
    public static List<GroupForwardingHandler> all(
            GroupCoordinatorLocator locator,
            CoordinatorGroupsClient client,
            AccessControl acls,
            Supplier<ClusterImage> image) {
        GroupAccess access = new GroupAccess(acls, image);
        return FORWARDED.stream()
                .map(range -> new GroupForwardingHandler(range, locator, client, access))
                .toList();
    }

    /** The forwarding handler of {@code api}, one of {@link #FORWARDED}, as {@link #all} makes it. */
    public static GroupForwardingHandler of(
            ApiKeys api,
            GroupCoordinatorLocator locator,
            CoordinatorGroupsClient client,
            AccessControl acls,
            Supplier<ClusterImage> image) {
        ApiVersionRange range = FORWARDED.stream()
                .filter(r -> r.apiKey() == api)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException(api + " is not forwarded"));
        return new GroupForwardingHandler(range, locator, client, new GroupAccess(acls, image));
    }

    @Override
    public ApiVersionRange versions() {
        return versions;
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        GroupAccess.Split split = access.split(request);
        if (split.forward() == null) {
            return split.answer().apply(null); // every item refused, or the whole request
        }
        return switch (locator.lookup()) {
            case Lookup.NotAvailable missing ->
                notAvailable(request, "no group coordinator known: " + missing.reason());
            case Lookup.Found found -> {
                try {
                    AbstractResponse answer = client.forward(found.coordinator(), request.header(), split.forward());
                    if (answer.errorCounts().containsKey(Errors.NOT_COORDINATOR)) {
                        locator.invalidate();
                    }
                    yield split.answer().apply(answer);
                } catch (IOException e) {
                    log.debug(
                            "{} forwarded to {} failed: {}",
                            request.header().apiKey(),
                            found.coordinator(),
                            e.getMessage());
                    locator.invalidate();
                    yield notAvailable(request, "the group coordinator cannot be reached: " + e.getMessage());
                }
            }
        };
    }

    private static AbstractResponse notAvailable(KafkaRequest request, String message) {
        return request.body().getErrorResponse(0, new CoordinatorNotAvailableException(message));
    }
}
