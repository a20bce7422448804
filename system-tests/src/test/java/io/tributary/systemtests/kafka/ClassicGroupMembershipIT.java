package io.tributary.systemtests.kafka;

import static io.tributary.systemtests.kafka.ClassicGroupProtocolIT.DESCRIBE;
import static io.tributary.systemtests.kafka.ClassicGroupProtocolIT.HEARTBEAT;
import static io.tributary.systemtests.kafka.ClassicGroupProtocolIT.JOIN;
import static io.tributary.systemtests.kafka.ClassicGroupProtocolIT.LEAVE;
import static io.tributary.systemtests.kafka.ClassicGroupProtocolIT.SYNC;
import static io.tributary.systemtests.kafka.ClassicGroupProtocolIT.awaitJoining;
import static io.tributary.systemtests.kafka.ClassicGroupProtocolIT.commit;
import static io.tributary.systemtests.kafka.ClassicGroupProtocolIT.compare;
import static io.tributary.systemtests.kafka.ClassicGroupProtocolIT.describe;
import static io.tributary.systemtests.kafka.ClassicGroupProtocolIT.group;
import static io.tributary.systemtests.kafka.ClassicGroupProtocolIT.oldest;
import static io.tributary.systemtests.kafka.ClassicGroupProtocolIT.stablePair;
import static io.tributary.systemtests.kafka.ClassicGroupProtocolIT.syncLeaderAndFollower;
import static io.tributary.systemtests.kafka.ClassicGroupProtocolIT.topic;

import io.tributary.systemtests.kafka.ClassicGroupMember.Names;
import io.tributary.systemtests.kafka.ClassicGroupRequests.Topic;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.protocol.ApiKeys;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Differential, as {@link ClassicGroupProtocolIT}: a classic group's membership over time — members
 * leaving (LeaveGroup at each version), the Empty group and its deletion, requests for a group
 * nobody created, and static members (group.instance.id) coming back.
 */
@OnSharedTargets
class ClassicGroupMembershipIT {

    /**
     * LeaveGroup: a v5 batch naming a member and an unknown one; the remaining member rejoins;
     * the last member leaves with v2; the Empty group takes a simple commit, is refused deletion
     * while a member is in it, and is deleted once it is Empty.
     */
    @Test
    void membersLeaveOneByOneAndTheEmptyGroupCanBeDeleted() {
        compare("leave", (target, out) -> {
            Names names = new Names();
            String group = group("leave");
            Topic topic = topic(target, "classic-leave");
            String made = "made-up-" + UUID.randomUUID();
            names.nameMember(made, "made-up");
            try (var a = ClassicGroupMember.open(target, group, "A", names);
                    var b = ClassicGroupMember.open(target, group, "B", names);
                    var c = ClassicGroupMember.open(target, group, "C", names);
                    var q = ClassicGroupMember.open(target, group, "Q", names)) {
                stablePair(out, q, a, b);
                int stableGeneration = a.generation;
                out.add("delete v2 with members", ClassicGroupRequests.delete(q.raw(), (short) 2, group));
                out.add(
                        "B and made-up leave v5",
                        b.leave(
                                LEAVE,
                                List.of(b.identity().setReason("probing"), new MemberIdentity().setMemberId(made))));
                out.add("B leaves again v5", b.leave(LEAVE, List.of(b.identity())));
                out.add("B leaves again v1", b.leave((short) 1, List.of(b.identity())));
                out.add("describe after B left", describe(q, names, group));
                out.add("B heartbeat", b.heartbeat(HEARTBEAT));
                out.add("A heartbeat", a.heartbeat(HEARTBEAT));
                out.add("A rejoins", a.describeJoin(a.join(JOIN)));
                out.add("A syncs", a.syncAssigning("asg-A"));
                out.add("A leaves v2", a.leave((short) 2, List.of(a.identity())));
                out.add("describe v6 after all left", describe(q, names, group));
                out.add(
                        "list v5 after all left",
                        ClassicGroupRequests.list(q.raw(), (short) 5, group, List.of(), List.of()));
                out.add("A heartbeat after leaving", a.heartbeat(HEARTBEAT));
                out.add(
                        "A commit v8 at its old generation",
                        commit(q, (short) 8, group, a.generation, a.memberId, topic));
                out.add(
                        "A commit v8 at the first stable generation",
                        commit(q, (short) 8, group, stableGeneration, a.memberId, topic));
                out.add("commit v8 generation -1 no member id", commit(q, (short) 8, group, -1, "", topic));
                out.add("fetch v8", ClassicGroupRequests.fetch(q.raw(), (short) 8, group, null, -1, topic));
                out.add("C joins the Empty group", c.describeJoin(c.joinFully(JOIN)));
                out.add("delete v2 while C is in it", ClassicGroupRequests.delete(q.raw(), (short) 2, group));
                out.add("C syncs", c.syncNothing());
                out.add("C leaves v3", c.leave((short) 3, List.of(c.identity())));
                out.add("delete v2 once Empty", ClassicGroupRequests.delete(q.raw(), (short) 2, group));
                out.add("describe v6 after delete", describe(q, names, group));
                out.add("describe v5 after delete", ClassicGroupRequests.describe(q.raw(), names, (short) 5, group));
                out.add(
                        "fetch v8 after delete",
                        ClassicGroupRequests.fetch(q.raw(), (short) 8, group, null, -1, topic));
            }
        });
    }

    /** Heartbeat, SyncGroup, LeaveGroup, OffsetCommit, DescribeGroups and DeleteGroups for a group nobody created. */
    @Test
    void requestsForAnUnknownGroup() {
        compare("unknown-group", (target, out) -> {
            Names names = new Names();
            String group = group("unknown");
            Topic topic = topic(target, "classic-unknown");
            String made = "made-up-" + UUID.randomUUID();
            names.nameMember(made, "made-up");
            try (var x = ClassicGroupMember.open(target, group, "X", names)) {
                x.memberId = made;
                x.generation = 1;
                for (short v = oldest(x.raw(), ApiKeys.HEARTBEAT); v <= HEARTBEAT; v++) {
                    out.add("heartbeat v" + v, x.heartbeat(v));
                }
                out.add("sync v5", x.syncNothing());
                out.add(
                        "sync oldest",
                        x.describeSync(x.sync(oldest(x.raw(), ApiKeys.SYNC_GROUP), x.syncRequest(Map.of(), "range"))));
                for (short v = oldest(x.raw(), ApiKeys.LEAVE_GROUP); v <= LEAVE; v++) {
                    out.add("leave v" + v, x.leave(v, List.of(x.identity())));
                }
                out.add("describe v5", ClassicGroupRequests.describe(x.raw(), names, (short) 5, group));
                out.add("describe v6", ClassicGroupRequests.describe(x.raw(), names, DESCRIBE, group));
                out.add("delete v2", ClassicGroupRequests.delete(x.raw(), (short) 2, group));
                out.add("commit v8 generation 1, made-up member", commit(x, (short) 8, group, 1, made, topic));
                out.add("describe v6 after that", ClassicGroupRequests.describe(x.raw(), names, DESCRIBE, group));
                out.add("commit v8 generation -1, made-up member", commit(x, (short) 8, group, -1, made, topic));
                out.add("describe v6 after that", ClassicGroupRequests.describe(x.raw(), names, DESCRIBE, group));
                out.add("commit v8 generation -1, no member id", commit(x, (short) 8, group, -1, "", topic));
                out.add(
                        "describe v6 after the simple commit",
                        ClassicGroupRequests.describe(x.raw(), names, DESCRIBE, group));
                out.add(
                        "list v5 after the simple commit",
                        ClassicGroupRequests.list(x.raw(), (short) 5, group, List.of(), List.of()));
                out.add("heartbeat v4 into the simple-commit group", x.heartbeat(HEARTBEAT));
                out.add("commit v8 generation 1, made-up member, into it", commit(x, (short) 8, group, 1, made, topic));
                out.add("fetch v8", ClassicGroupRequests.fetch(x.raw(), (short) 8, group, null, -1, topic));
                x.memberId = "";
                out.add("join into it", x.describeJoin(x.joinFully(JOIN)));
                out.add(
                        "delete v2 of a group nobody ever named",
                        ClassicGroupRequests.delete(x.raw(), (short) 2, group("never")));
            }
        });
    }

    /**
     * Static membership: a member with a group.instance.id that joins again without its member id
     * gets a new one, and the old one is fenced; a follower's return changes nothing else; the
     * leader's return at v9 tells it to skip the assignment.
     */
    @Test
    void aStaticMemberThatJoinsAgainFencesItsOldMemberId() {
        compare("static", (target, out) -> {
            Names names = new Names();
            String group = group("static");
            Topic topic = topic(target, "classic-static");
            try (var a = ClassicGroupMember.open(target, group, "A", names);
                    var b = ClassicGroupMember.open(target, group, "B", names);
                    var q = ClassicGroupMember.open(target, group, "Q", names)) {
                a.instanceId = "instance-a";
                b.instanceId = "instance-b";
                out.add("A joins v9 no member id", a.describeJoin(a.join(JOIN)));
                if (a.memberId.isEmpty() || a.generation < 0) {
                    out.add("A joins again", a.describeJoin(a.join(JOIN)));
                }
                out.add("A syncs", a.syncAssigning("asg-A1"));
                var bJoin = b.sendJoin(JOIN, b.joinRequest());
                awaitJoining(q, 2);
                out.add("A heartbeat while B joins", a.heartbeat(HEARTBEAT));
                var aJoin = a.sendJoin(JOIN, a.joinRequest());
                out.add("A rejoins", a.describeJoin(a.receiveJoin(aJoin)));
                out.add("B's join", b.describeJoin(b.receiveJoin(bJoin)));
                syncLeaderAndFollower(out, "", a, "asg-A2", b, "asg-B2");
                out.add("describe", describe(q, names, group));

                String oldB = b.memberId;
                int gen = b.generation;
                b.memberId = "";
                out.add("B joins again v9 without its id", b.describeJoin(b.join(JOIN)));
                out.add("old B heartbeat", b.heartbeat(HEARTBEAT, oldB, gen, b.instanceId));
                out.add("old B heartbeat v2 (no instance id)", b.heartbeat((short) 2, oldB, gen, null));
                out.add("new B heartbeat", b.heartbeat(HEARTBEAT));
                out.add("new B sync", b.syncNothing());
                out.add("A heartbeat", a.heartbeat(HEARTBEAT));
                out.add(
                        "old B sync",
                        b.describeSync(
                                b.sync(SYNC, b.syncRequest(Map.of(), "range").setMemberId(oldB))));
                out.add(
                        "old B commit v7",
                        ClassicGroupRequests.commit(q.raw(), (short) 7, group, gen, oldB, b.instanceId, topic, 1));
                out.add(
                        "old B commit v6 (no instance id)",
                        ClassicGroupRequests.commit(q.raw(), (short) 6, group, gen, oldB, null, topic, 1));
                out.add(
                        "old B join v9 with its old id",
                        b.describeJoin(b.join(JOIN, b.joinRequest().setMemberId(oldB))));
                out.add(
                        "old B leaves v5",
                        b.leave(
                                LEAVE,
                                List.of(new MemberIdentity().setMemberId(oldB).setGroupInstanceId(b.instanceId))));
                out.add(
                        "unknown instance, no member id, leaves v5",
                        b.leave(LEAVE, List.of(new MemberIdentity().setGroupInstanceId("instance-nobody"))));

                String oldA = a.memberId;
                a.memberId = "";
                out.add("A (leader) joins again v9 without its id", a.describeJoin(a.join(JOIN)));
                out.add("old A heartbeat", a.heartbeat(HEARTBEAT, oldA, gen, a.instanceId));
                out.add("new A heartbeat", a.heartbeat(HEARTBEAT));
                out.add("new A sync", a.syncNothing());
                String oldA2 = a.memberId;
                a.memberId = "";
                out.add("A (leader) joins again v8 without its id", a.describeJoin(a.join((short) 8)));
                out.add("B heartbeat after the v8 leader return", b.heartbeat(HEARTBEAT));
                out.add("old A heartbeat after the v8 return", a.heartbeat(HEARTBEAT, oldA2, gen, a.instanceId));
                out.add("describe", describe(q, names, group));

                b.subscribe("sub-B2");
                staticRejoin(out, "B joins again without its id, new metadata", q, a, b);
                b.protocols = List.of("roundrobin", "range");
                staticRejoin(out, "B joins again without its id, protocols reordered", q, a, b);
                names.nameMember("wrong-id", "wrong-id");
                out.add(
                        "B and A leave v5 by instance id",
                        b.leave(
                                LEAVE,
                                List.of(
                                        new MemberIdentity().setGroupInstanceId("instance-b"),
                                        new MemberIdentity()
                                                .setGroupInstanceId("instance-a")
                                                .setMemberId("wrong-id"))));
                out.add("describe after the leaves", describe(q, names, group));
            }
        });
    }

    /**
     * Static member {@code b} joins again without its member id, with settings the scenario
     * changed; if that starts a rebalance (the group leaves Stable), leader {@code a} rejoins and
     * both sync. Waits until the coordinator has replaced b's member id before it looks.
     */
    static void staticRejoin(
            Differential.Outcome out, String label, ClassicGroupMember q, ClassicGroupMember a, ClassicGroupMember b)
            throws Exception {
        String old = b.memberId;
        b.memberId = "";
        var bJoin = b.sendJoin(JOIN, b.joinRequest());
        var seen = Awaitility.await(label + ": the coordinator replaces the old member id")
                .atMost(Clients.PATIENCE)
                .pollInterval(Duration.ofMillis(100))
                .until(
                        () -> ClassicGroupRequests.describeData(q.raw(), DESCRIBE, q.group),
                        g -> g.members().stream().noneMatch(m -> m.memberId().equals(old)));
        out.add(label + ": state once replaced", seen.groupState());
        if (!seen.groupState().equals("Stable")) {
            out.add(label + ": A heartbeat", a.heartbeat(HEARTBEAT));
            var aJoin = a.sendJoin(JOIN, a.joinRequest());
            out.add(label + ": A rejoins", a.describeJoin(a.receiveJoin(aJoin)));
            out.add(label + ": B's join", b.describeJoin(b.receiveJoin(bJoin)));
            syncLeaderAndFollower(out, label + ": ", a, "asg-A3", b, "asg-B3");
        } else {
            out.add(label, b.describeJoin(b.receiveJoin(bJoin)));
            out.add(label + ": B syncs", b.syncNothing());
        }
        out.add(label + ": describe", ClassicGroupRequests.describe(q.raw(), q.names(), DESCRIBE, q.group));
    }
}
