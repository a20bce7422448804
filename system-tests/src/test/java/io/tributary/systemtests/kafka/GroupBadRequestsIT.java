package io.tributary.systemtests.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Differential, as {@link BadRequestsIT}: bad requests about consumer groups, the same against every
 * enabled target, and the outcome each one shows (the client's exception, or the raw response's
 * error codes for requests no client would send) must be Kafka's. The raw requests go to the
 * group's coordinator as FindCoordinator names it.
 */
@OnSharedTargets
class GroupBadRequestsIT {

    /** The rebalance timeout a raw member announces (what a consumer sends: max.poll.interval.ms). */
    private static final int REBALANCE_TIMEOUT_MS = 300_000;

    @Test
    void describingAnUnknownGroupIsGroupIdNotFound() throws Exception {
        BadRequestsIT.assertEveryTargetAnswers("org.apache.kafka.common.errors.GroupIdNotFoundException", target -> {
            try (Admin admin = target.admin()) {
                String[] seen = new String[1];
                String failure = BadRequestsIT.failureOf(() -> {
                    ConsumerGroupDescription description = GroupAdminIT.describe(admin, unknownGroup());
                    seen[0] = "state=" + description.groupState() + " members="
                            + description.members().size();
                });
                return seen[0] != null ? seen[0] : failure;
            }
        });
    }

    @Test
    void offsetsOfAnUnknownGroupAreNoneForTheAdminAndTheConsumer() throws Exception {
        BadRequestsIT.assertEveryTargetAnswers("admin {}, consumer {p0=null}", target -> {
            String topic = Clients.uniqueTopic("unknown-group-offsets");
            String group = unknownGroup();
            try (Admin admin = target.admin()) {
                Clients.createTopic(admin, topic, 1);
                Map<Integer, Long> offsets = GroupAdminIT.offsets(admin, group);
                try (KafkaConsumer<byte[], byte[]> consumer = GroupAdminIT.member(target, group, "committed-reader")) {
                    Map<String, Object> committed = new TreeMap<>();
                    consumer.committed(Set.copyOf(Clients.partitions(topic, 1)))
                            .forEach((tp, o) -> committed.put("p" + tp.partition(), o));
                    return "admin " + offsets + ", consumer " + committed;
                }
            }
        });
    }

    @Test
    void aRawOffsetFetchForAnUnknownGroupAnswersNoOffsetAndNoError() throws Exception {
        BadRequestsIT.assertEveryTargetAnswers(
                "named partition: group NONE, partition 0 offset -1 NONE; all partitions: group NONE, 0 topics",
                target -> {
                    String topic = Clients.uniqueTopic("unknown-group-fetch");
                    String group = unknownGroup();
                    TopicDescription description;
                    try (Admin admin = target.admin()) {
                        description = Clients.createTopic(admin, topic, 1);
                    }
                    try (RawKafka raw = RawKafka.open(coordinatorPort(target, group))) {
                        var named = offsetFetch(
                                raw,
                                new OffsetFetchRequestData.OffsetFetchRequestGroup()
                                        .setGroupId(group)
                                        .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics()
                                                .setName(topic)
                                                .setTopicId(description.topicId())
                                                .setPartitionIndexes(List.of(0)))));
                        var all = offsetFetch(
                                raw,
                                new OffsetFetchRequestData.OffsetFetchRequestGroup()
                                        .setGroupId(group)
                                        .setTopics(null));
                        List<String> partitions = new ArrayList<>();
                        for (var t : named.topics()) {
                            for (var p : t.partitions()) {
                                partitions.add("partition " + p.partitionIndex() + " offset " + p.committedOffset()
                                        + " " + Errors.forCode(p.errorCode()));
                            }
                        }
                        return "named partition: group " + Errors.forCode(named.errorCode()) + ", "
                                + String.join(", ", partitions) + "; all partitions: group "
                                + Errors.forCode(all.errorCode()) + ", "
                                + all.topics().size() + " topics";
                    }
                });
    }

    /**
     * A raw member joins (ConsumerGroupHeartbeat, epoch 0) and subscribes to a second topic (a new
     * group epoch), heartbeating until its member epoch is at least 2, and commits: at its epoch
     * (accepted), at the epoch before and at one ahead (stale), as an unknown member, and to a
     * group that does not exist; then it leaves, and its old epoch is refused. Epoch numbers are
     * the coordinator's business; the outcome names them relative to the member's.
     *
     * <p>The commits are of the second topic's partition, which the member got at its current
     * epoch: since KIP-1251 (Kafka 4.3) a commit at an older epoch is accepted for a partition the
     * member owns since that epoch or before, so "epoch - 1" is stale only for a partition given at
     * the current epoch. (For the first topic's partition the answer depends on the coordinator's
     * assignment timing: Kafka 4.4 batches and offloads assignments, so the member gets both
     * partitions at one epoch; a coordinator that assigns at once gives the first at the join.)
     */
    @Test
    void offsetCommitsAreFencedByMemberEpoch() throws Exception {
        BadRequestsIT.assertEveryTargetAnswers(
                "join NONE; commit at the member's epoch NONE, at epoch - 1 STALE_MEMBER_EPOCH,"
                        + " at epoch + 1 STALE_MEMBER_EPOCH, unknown member UNKNOWN_MEMBER_ID,"
                        + " unknown group GROUP_ID_NOT_FOUND; leave NONE epoch -1,"
                        + " then at the old epoch UNKNOWN_MEMBER_ID",
                target -> {
                    String topic = Clients.uniqueTopic("epoch-fencing");
                    String other = Clients.uniqueTopic("epoch-fencing-other");
                    String group =
                            "epoch-fencing-" + UUID.randomUUID().toString().substring(0, 8);
                    Uuid otherId;
                    try (Admin admin = target.admin()) {
                        Clients.createTopic(admin, topic, 1);
                        otherId = Clients.createTopic(admin, other, 1).topicId();
                    }
                    String memberId = Uuid.randomUuid().toString();
                    try (RawKafka raw = RawKafka.open(coordinatorPort(target, group))) {
                        var join = heartbeat(raw, join(group, memberId, topic));
                        if (join.errorCode() != Errors.NONE.code()) {
                            return "join " + Errors.forCode(join.errorCode());
                        }
                        int[] epoch = {join.memberEpoch()};
                        List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned = ownedPartitions(join);
                        List<String> subscription = List.of(topic, other);
                        Awaitility.await("member epoch 2 or more")
                                .atMost(Clients.PATIENCE)
                                .pollInterval(Duration.ofMillis(200))
                                .until(() -> {
                                    var beat = heartbeat(
                                            raw,
                                            new ConsumerGroupHeartbeatRequestData()
                                                    .setGroupId(group)
                                                    .setMemberId(memberId)
                                                    .setMemberEpoch(epoch[0])
                                                    .setSubscribedTopicNames(subscription)
                                                    .setTopicPartitions(owned));
                                    if (beat.errorCode() != Errors.NONE.code()) {
                                        throw new AssertionError("heartbeat " + Errors.forCode(beat.errorCode()));
                                    }
                                    epoch[0] = beat.memberEpoch();
                                    if (beat.assignment() != null) {
                                        owned.clear();
                                        owned.addAll(ownedPartitions(beat));
                                    }
                                    return epoch[0] >= 2;
                                });
                        int e = epoch[0];
                        String commits = String.format(
                                "commit at the member's epoch %s, at epoch - 1 %s, at epoch + 1 %s,"
                                        + " unknown member %s, unknown group %s",
                                commit(raw, group, memberId, e, other, otherId),
                                commit(raw, group, memberId, e - 1, other, otherId),
                                commit(raw, group, memberId, e + 1, other, otherId),
                                commit(raw, group, Uuid.randomUuid().toString(), e, other, otherId),
                                commit(raw, unknownGroup(), memberId, e, other, otherId));
                        var leave = heartbeat(raw, leave(group, memberId));
                        return String.format(
                                "join NONE; %s; leave %s epoch %d, then at the old epoch %s",
                                commits,
                                Errors.forCode(leave.errorCode()),
                                leave.memberEpoch(),
                                commit(raw, group, memberId, e, other, otherId));
                    }
                });
    }

    /**
     * In a group with one live (raw) member: a member naming a server assignor the coordinator does
     * not have, and a heartbeat of a member id the group does not know; in an unknown group, the
     * same heartbeat.
     */
    @Test
    void aHeartbeatNamingAnUnknownAssignorOrAnUnknownMemberIsRefused() throws Exception {
        BadRequestsIT.assertEveryTargetAnswers(
                "unknown assignor UNSUPPORTED_ASSIGNOR, unknown member at epoch 5 UNKNOWN_MEMBER_ID,"
                        + " in an unknown group GROUP_ID_NOT_FOUND",
                target -> {
                    String topic = Clients.uniqueTopic("bad-heartbeat");
                    String group =
                            "bad-heartbeat-" + UUID.randomUUID().toString().substring(0, 8);
                    try (Admin admin = target.admin()) {
                        Clients.createTopic(admin, topic, 1);
                    }
                    try (RawKafka raw = RawKafka.open(coordinatorPort(target, group))) {
                        String memberId = Uuid.randomUuid().toString();
                        var join = heartbeat(raw, join(group, memberId, topic));
                        if (join.errorCode() != Errors.NONE.code()) {
                            return "join " + Errors.forCode(join.errorCode());
                        }
                        var assignor = heartbeat(
                                raw,
                                join(group, Uuid.randomUuid().toString(), topic).setServerAssignor("no-such-assignor"));
                        var unknown = heartbeat(
                                raw,
                                new ConsumerGroupHeartbeatRequestData()
                                        .setGroupId(group)
                                        .setMemberId(Uuid.randomUuid().toString())
                                        .setMemberEpoch(5));
                        var unknownGroup = heartbeat(
                                raw,
                                new ConsumerGroupHeartbeatRequestData()
                                        .setGroupId(unknownGroup())
                                        .setMemberId(Uuid.randomUuid().toString())
                                        .setMemberEpoch(5));
                        heartbeat(raw, leave(group, memberId));
                        return "unknown assignor " + Errors.forCode(assignor.errorCode())
                                + ", unknown member at epoch 5 " + Errors.forCode(unknown.errorCode())
                                + ", in an unknown group " + Errors.forCode(unknownGroup.errorCode());
                    }
                });
    }

    private static ConsumerGroupHeartbeatRequestData join(String group, String memberId, String topic) {
        return new ConsumerGroupHeartbeatRequestData()
                .setGroupId(group)
                .setMemberId(memberId)
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(REBALANCE_TIMEOUT_MS)
                .setSubscribedTopicNames(List.of(topic))
                .setTopicPartitions(List.of());
    }

    private static ConsumerGroupHeartbeatRequestData leave(String group, String memberId) {
        return new ConsumerGroupHeartbeatRequestData()
                .setGroupId(group)
                .setMemberId(memberId)
                .setMemberEpoch(-1);
    }

    @Test
    void aConsumerAskingForAnUnknownServerAssignorFailsToPoll() throws Exception {
        BadRequestsIT.assertEveryTargetAnswers(
                "org.apache.kafka.common.errors.UnsupportedAssignorException", target -> {
                    String topic = Clients.uniqueTopic("unknown-assignor");
                    try (Admin admin = target.admin()) {
                        Clients.createTopic(admin, topic, 1);
                    }
                    Map<String, Object> settings = new TreeMap<>();
                    GroupMember.properties("bad-assignor", target.bootstrapServers(), unknownGroup(), null)
                            .forEach((k, v) -> settings.put((String) k, v));
                    settings.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, "no-such-assignor");
                    try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(target, settings)) {
                        consumer.subscribe(List.of(topic));
                        return BadRequestsIT.failureOf(() -> {
                            long deadline = System.nanoTime() + Clients.PATIENCE.toNanos();
                            while (System.nanoTime() < deadline) {
                                consumer.poll(Duration.ofMillis(200));
                            }
                        });
                    }
                });
    }

    private static String unknownGroup() {
        return "no-such-group-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** The Kafka port of the group's coordinator, as FindCoordinator at the first broker names it. */
    static int coordinatorPort(KafkaTarget target, String group) throws Exception {
        try (RawKafka raw = RawKafka.open(target.ports().getFirst())) {
            short version = raw.version(ApiKeys.FIND_COORDINATOR);
            var data = new FindCoordinatorRequestData().setKeyType(FindCoordinatorRequest.CoordinatorType.GROUP.id());
            if (version >= 4) {
                data.setCoordinatorKeys(List.of(group));
            } else {
                data.setKey(group);
            }
            FindCoordinatorResponse response = raw.connection()
                    .roundTrip(new FindCoordinatorRequest.Builder(data).build(version), FindCoordinatorResponse.class);
            if (version >= 4) {
                FindCoordinatorResponseData.Coordinator coordinator =
                        response.data().coordinators().getFirst();
                if (coordinator.errorCode() != Errors.NONE.code()) {
                    throw new AssertionError("FindCoordinator: " + Errors.forCode(coordinator.errorCode()));
                }
                return coordinator.port();
            }
            if (response.data().errorCode() != Errors.NONE.code()) {
                throw new AssertionError(
                        "FindCoordinator: " + Errors.forCode(response.data().errorCode()));
            }
            return response.data().port();
        }
    }

    private static ConsumerGroupHeartbeatResponseData heartbeat(RawKafka raw, ConsumerGroupHeartbeatRequestData data)
            throws Exception {
        short version = raw.version(ApiKeys.CONSUMER_GROUP_HEARTBEAT);
        return raw.connection()
                .roundTrip(
                        new ConsumerGroupHeartbeatRequest.Builder(data).build(version),
                        ConsumerGroupHeartbeatResponse.class)
                .data();
    }

    private static List<ConsumerGroupHeartbeatRequestData.TopicPartitions> ownedPartitions(
            ConsumerGroupHeartbeatResponseData response) {
        List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned = new ArrayList<>();
        if (response.assignment() != null) {
            for (var tp : response.assignment().topicPartitions()) {
                owned.add(new ConsumerGroupHeartbeatRequestData.TopicPartitions()
                        .setTopicId(tp.topicId())
                        .setPartitions(tp.partitions()));
            }
        }
        return owned;
    }

    /** Commits offset 1 of partition 0 as the given member at the given epoch; the partition's error. */
    private static Errors commit(RawKafka raw, String group, String memberId, int epoch, String topic, Uuid topicId)
            throws Exception {
        short version = raw.version(ApiKeys.OFFSET_COMMIT);
        var data = new OffsetCommitRequestData()
                .setGroupId(group)
                .setMemberId(memberId)
                .setGenerationIdOrMemberEpoch(epoch)
                .setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                        .setName(topic)
                        .setTopicId(topicId)
                        .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                .setPartitionIndex(0)
                                .setCommittedOffset(1)))));
        OffsetCommitResponse response = raw.connection()
                .roundTrip(
                        OffsetCommitRequest.Builder.forTopicIdsOrNames(data).build(version),
                        OffsetCommitResponse.class);
        var partitions = response.data().topics().stream()
                .flatMap(t -> t.partitions().stream())
                .toList();
        if (partitions.size() != 1) {
            throw new AssertionError("one partition answer expected: " + response.data());
        }
        return Errors.forCode(partitions.getFirst().errorCode());
    }

    private static OffsetFetchResponseData.OffsetFetchResponseGroup offsetFetch(
            RawKafka raw, OffsetFetchRequestData.OffsetFetchRequestGroup group) throws Exception {
        short version = raw.version(ApiKeys.OFFSET_FETCH);
        if (version < 8) {
            throw new AssertionError("OffsetFetch v8+ (groups) expected, the broker offers v" + version);
        }
        var data = new OffsetFetchRequestData().setGroups(List.of(group));
        OffsetFetchResponse response = raw.connection()
                .roundTrip(
                        OffsetFetchRequest.Builder.forTopicIdsOrNames(data, false)
                                .build(version),
                        OffsetFetchResponse.class);
        return response.data().groups().getFirst();
    }
}
