package io.tributary.systemtests.kafka;

import static io.tributary.systemtests.kafka.ClassicGroupProtocolIT.JOIN;
import static io.tributary.systemtests.kafka.ClassicGroupProtocolIT.SYNC;

import io.tributary.systemtests.kafka.ClassicGroupMember.Names;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse;
import org.junit.jupiter.api.Test;

/**
 * Differential, as {@link ClassicGroupProtocolIT}: the two group protocols meeting in one group id
 * (Kafka 4.4's mixed groups). A KIP-848 member (ConsumerGroupHeartbeat) joins a non-empty classic
 * group (the upgrade), a classic member (JoinGroup) joins a non-empty KIP-848 group, and the last
 * KIP-848 member leaves a mixed group (the downgrade); Kafka 4.4 answers with its default {@code
 * group.consumer.migration.policy} (bidirectional). Only errors, states and group types are written down: how a
 * converted group then reassigns is the coordinator's timing.
 */
@OnSharedTargets
class ClassicGroupMigrationIT {

    /**
     * A KIP-848 member joins a Stable classic group of one whose member's assignment carries user
     * data (a custom assignor's: Kafka will not upgrade, the data would be lost), and one whose
     * assignment has none (Kafka upgrades the group to a consumer group).
     */
    @Test
    void aConsumerProtocolMemberJoiningANonEmptyClassicGroup() {
        ClassicGroupProtocolIT.compare("kip848-into-classic", (target, out) -> {
            Names names = new Names();
            var topic = ClassicGroupProtocolIT.topic(target, "classic-into");
            for (boolean userData : new boolean[] {true, false}) {
                String group = ClassicGroupProtocolIT.group("into-classic");
                String at = userData ? "user data: " : "no user data: ";
                try (var a = ClassicGroupMember.open(target, group, "A", names);
                        var q = ClassicGroupMember.open(target, group, "Q", names)) {
                    out.add(at + "A joins", a.describeJoin(a.joinFully(JOIN)));
                    byte[] assignment = userData ? a.assignment("asg-A") : a.plainAssignment("asg-plain");
                    out.add(
                            at + "A syncs",
                            a.describeSync(a.sync(SYNC, a.syncRequest(Map.of(a, assignment), "range"))));
                    String x = Uuid.randomUuid().toString();
                    var join = heartbeat(q.raw(), consumerJoin(group, x, topic.name()));
                    out.add(at + "X ConsumerGroupHeartbeat join", describe(join));
                    // the converted group's state (Assigning, Reconciling, ...) is the assignment's timing: its type
                    // only
                    String listed = ClassicGroupRequests.list(q.raw(), (short) 5, group, List.of(), List.of());
                    System.out.println("[classic] " + at + "list v5 after X: " + listed);
                    out.add(at + "list v5, type", listed.replaceAll(".* type=", "type="));
                    out.add(at + "describe v6 (classic)", ClassicGroupProtocolIT.briefly(q, group));
                    // whether A must rejoin depends on when the coordinator assigns: printed only
                    System.out.println("[classic] " + at + "A heartbeat after X: "
                            + a.heartbeat(ClassicGroupProtocolIT.HEARTBEAT));
                    if (join.errorCode() == Errors.NONE.code()) {
                        out.add(at + "X leaves", describe(heartbeat(q.raw(), consumerLeave(group, x))));
                    }
                    out.add(at + "A leaves v5", a.leave(ClassicGroupProtocolIT.LEAVE, List.of(a.identity())));
                    out.add(
                            at + "list v5 after both left",
                            ClassicGroupRequests.list(q.raw(), (short) 5, group, List.of(), List.of()));
                }
            }
        });
    }

    @Test
    void aClassicMemberJoiningANonEmptyConsumerProtocolGroup() {
        ClassicGroupProtocolIT.compare("classic-into-kip848", (target, out) -> {
            Names names = new Names();
            String group = ClassicGroupProtocolIT.group("into-consumer");
            var topic = ClassicGroupProtocolIT.topic(target, "classic-into-consumer");
            try (var a = ClassicGroupMember.open(target, group, "A", names);
                    var o = ClassicGroupMember.open(target, group, "O", names);
                    var q = ClassicGroupMember.open(target, group, "Q", names)) {
                String x = Uuid.randomUuid().toString();
                var join = heartbeat(q.raw(), consumerJoin(group, x, topic.name()));
                out.add("X ConsumerGroupHeartbeat join", describe(join));
                out.add("list v5", ClassicGroupRequests.list(q.raw(), (short) 5, group, List.of(), List.of()));
                o.protocolType = "other";
                out.add("O joins v9 with protocol type other", o.describeJoin(o.join(JOIN)));
                out.add("A joins v9 no member id", a.describeJoin(a.join(JOIN)));
                out.add(
                        "list v5 after A's first join",
                        ClassicGroupRequests.list(q.raw(), (short) 5, group, List.of(), List.of()));
                if (!a.memberId.isEmpty()) {
                    out.add("A joins v9 with its id", a.describeJoin(a.join(JOIN)));
                    var sync = a.sync(SYNC, a.syncRequest(Map.of(), "range"));
                    // the bytes name the topic, whose name is the run's own: only whether there are any
                    out.add(
                            "A syncs",
                            Errors.forCode(sync.errorCode()) + " protocol=" + sync.protocolType() + "/"
                                    + sync.protocolName() + " assignment bytes: " + (sync.assignment().length > 0));
                    out.add("A heartbeat", a.heartbeat(ClassicGroupProtocolIT.HEARTBEAT));
                    out.add("describe v6", ClassicGroupProtocolIT.briefly(q, group));
                    out.add("A leaves v5", a.leave(ClassicGroupProtocolIT.LEAVE, List.of(a.identity())));
                }
                out.add("X leaves", describe(heartbeat(q.raw(), consumerLeave(group, x))));
            }
        });
    }

    /**
     * The downgrade: a classic group upgraded by a KIP-848 member X goes back to a classic group
     * when X, its last KIP-848 member, leaves; the classic member A then rejoins a classic group
     * (it leads it again) and syncs.
     */
    @Test
    void theLastConsumerProtocolMemberLeavingAMixedGroup() {
        ClassicGroupProtocolIT.compare("downgrade", (target, out) -> {
            Names names = new Names();
            String group = ClassicGroupProtocolIT.group("downgrade");
            var topic = ClassicGroupProtocolIT.topic(target, "downgrade");
            try (var a = ClassicGroupMember.open(target, group, "A", names);
                    var q = ClassicGroupMember.open(target, group, "Q", names)) {
                out.add("A joins", a.describeJoin(a.joinFully(JOIN)));
                out.add(
                        "A syncs",
                        a.describeSync(
                                a.sync(SYNC, a.syncRequest(Map.of(a, a.plainAssignment("asg-plain")), "range"))));
                String x = Uuid.randomUuid().toString();
                out.add(
                        "X ConsumerGroupHeartbeat join",
                        describe(heartbeat(q.raw(), consumerJoin(group, x, topic.name()))));
                out.add(
                        "list v5 after X, type",
                        ClassicGroupRequests.list(q.raw(), (short) 5, group, List.of(), List.of())
                                .replaceAll(".* type=", "type="));
                out.add("X leaves", describe(heartbeat(q.raw(), consumerLeave(group, x))));
                out.add(
                        "list v5 after X left",
                        ClassicGroupRequests.list(q.raw(), (short) 5, group, List.of(), List.of()));
                out.add("describe v6 after X left", ClassicGroupProtocolIT.briefly(q, group));
                out.add("A heartbeat after X left", a.heartbeat(ClassicGroupProtocolIT.HEARTBEAT));
                out.add("A joins again", a.describeJoin(a.join(JOIN)));
                out.add(
                        "A syncs again",
                        a.describeSync(
                                a.sync(SYNC, a.syncRequest(Map.of(a, a.plainAssignment("asg-plain")), "range"))));
                out.add("A heartbeat", a.heartbeat(ClassicGroupProtocolIT.HEARTBEAT));
                out.add("describe v6", ClassicGroupProtocolIT.briefly(q, group));
                out.add("A leaves v5", a.leave(ClassicGroupProtocolIT.LEAVE, List.of(a.identity())));
                out.add(
                        "list v5 after A left",
                        ClassicGroupRequests.list(q.raw(), (short) 5, group, List.of(), List.of()));
            }
        });
    }

    /** A KIP-848 member's first heartbeat: epoch 0, subscribed to {@code topic}, owning nothing. */
    private static ConsumerGroupHeartbeatRequestData consumerJoin(String group, String memberId, String topic) {
        return new ConsumerGroupHeartbeatRequestData()
                .setGroupId(group)
                .setMemberId(memberId)
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(60_000)
                .setSubscribedTopicNames(List.of(topic))
                .setTopicPartitions(List.of());
    }

    /** A KIP-848 member's leave: epoch -1. */
    private static ConsumerGroupHeartbeatRequestData consumerLeave(String group, String memberId) {
        return new ConsumerGroupHeartbeatRequestData()
                .setGroupId(group)
                .setMemberId(memberId)
                .setMemberEpoch(-1);
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

    private static String describe(ConsumerGroupHeartbeatResponseData r) {
        System.out.println("[classic] ConsumerGroupHeartbeat answered " + r);
        return Errors.forCode(r.errorCode()) + " epoch " + (r.memberEpoch() > 0 ? "> 0" : r.memberEpoch());
    }
}
