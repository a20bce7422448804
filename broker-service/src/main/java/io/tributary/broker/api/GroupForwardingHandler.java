package io.tributary.broker.api;

import io.tributary.broker.cluster.CoordinatorGroupsClient;
import io.tributary.broker.cluster.GroupCoordinatorLocator;
import io.tributary.broker.cluster.GroupCoordinatorLocator.Lookup;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
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

    public GroupForwardingHandler(
            ApiVersionRange versions, GroupCoordinatorLocator locator, CoordinatorGroupsClient client) {
        this.versions = Objects.requireNonNull(versions, "versions");
        this.locator = Objects.requireNonNull(locator, "locator");
        this.client = Objects.requireNonNull(client, "client");
    }

    /** A forwarding handler for each of {@link #FORWARDED}. */
    public static List<GroupForwardingHandler> all(GroupCoordinatorLocator locator, CoordinatorGroupsClient client) {
        return FORWARDED.stream()
                .map(range -> new GroupForwardingHandler(range, locator, client))
                .toList();
    }

    @Override
    public ApiVersionRange versions() {
        return versions;
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        return switch (locator.lookup()) {
            case Lookup.NotAvailable missing ->
                notAvailable(request, "no group coordinator known: " + missing.reason());
            case Lookup.Found found -> {
                try {
                    AbstractResponse answer = client.forward(found.coordinator(), request.header(), request.body());
                    if (answer.errorCounts().containsKey(Errors.NOT_COORDINATOR)) {
                        locator.invalidate();
                    }
                    yield answer;
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
