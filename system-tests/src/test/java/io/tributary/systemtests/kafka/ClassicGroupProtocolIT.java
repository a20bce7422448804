package io.tributary.systemtests.kafka;

import io.tributary.systemtests.kafka.ClassicGroupMember.Names;
import io.tributary.systemtests.kafka.ClassicGroupRequests.Topic;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Differential, over raw requests: the classic consumer group protocol (JoinGroup, SyncGroup,
 * Heartbeat, LeaveGroup, and the offset and admin requests about a classic group) in its edge
 * cases, at chosen request versions. Each scenario writes every answer down as a line (error names;
 * member ids, generations and bytes by {@link Names}), and each Tributary target's lines must be
 * Apache Kafka's. Members leaving, unknown groups and static members are in {@link
 * ClassicGroupMembershipIT}; the timing-dependent cases (session and rebalance timeouts) in {@link
 * ClassicGroupTimeoutsIT}; the two protocols meeting in one group in {@link ClassicGroupMigrationIT}.
 *
 * <p>Requests on different connections are not ordered: after a join that makes the group
 * rebalance, a scenario waits ({@link #awaitJoining}) until the coordinator lists the joining
 * member before it sends anything that depends on it.
 */
@OnSharedTargets
class ClassicGroupProtocolIT {

    static final short JOIN = 9;
    static final short SYNC = 5;
    static final short HEARTBEAT = 4;
    static final short LEAVE = 5;
    static final short DESCRIBE = 6;

    /** Runs {@code scenario} on every target and prints each target's lines (the probes' record). */
    static void compare(String name, Differential.Scenario scenario) {
        Differential.assertSameOutcome(printing(name, scenario));
    }

    /**
     * {@link #compare}, on every target at the same time ({@link
     * Differential#assertSameOutcomeAtOnce}): for the scenarios that wait out a coordinator's timeout.
     */
    static void compareAtOnce(String name, Differential.Scenario scenario) {
        Differential.assertSameOutcomeAtOnce(printing(name, scenario));
    }

    /** {@code scenario}, then its lines printed, prefixed with {@code name} and the target. */
    private static Differential.Scenario printing(String name, Differential.Scenario scenario) {
        return (target, outcome) -> {
            try {
                scenario.run(target, outcome);
            } finally {
                outcome.lines().forEach(line -> System.out.println("[" + name + " " + target.kind() + "] " + line));
            }
        };
    }

    static String group(String prefix) {
        return "classic-" + prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void theBrokerOffersTheClassicGroupApisAtKafkasVersions() {
        compare("versions", (target, out) -> {
            try (RawKafka raw = RawKafka.open(target.ports().getFirst())) {
                for (ApiKeys api : List.of(
                        ApiKeys.JOIN_GROUP,
                        ApiKeys.SYNC_GROUP,
                        ApiKeys.HEARTBEAT,
                        ApiKeys.LEAVE_GROUP,
                        ApiKeys.OFFSET_COMMIT,
                        ApiKeys.OFFSET_FETCH,
                        ApiKeys.DESCRIBE_GROUPS,
                        ApiKeys.LIST_GROUPS,
                        ApiKeys.DELETE_GROUPS,
                        ApiKeys.CONSUMER_GROUP_HEARTBEAT)) {
                    out.add(api.name, raw.offered(api));
                }
            }
        });
    }

    /**
     * A new member's join: from v4 the first JoinGroup without a member id is MEMBER_ID_REQUIRED
     * with the id to use; with it the member joins an empty group at once as its leader; before
     * the leader's SyncGroup the group is CompletingRebalance. Then one join without a member id at
     * each version the broker offers, each into a new group.
     */
    @Test
    void aNewMemberJoinsWithTheMemberIdTheCoordinatorGivesFromVersion4() {
        compare("join", (target, out) -> {
            Names names = new Names();
            String group = group("join");
            try (var a = ClassicGroupMember.open(target, group, "A", names);
                    var q = ClassicGroupMember.open(target, group, "Q", names)) {
                out.add(
                        "A join v9 no member id, reason",
                        a.describeJoin(a.join(JOIN, a.joinRequest().setReason("probing"))));
                out.add("describe after MEMBER_ID_REQUIRED", describe(q, names, group));
                out.add("A join v9 with its id", a.describeJoin(a.join(JOIN)));
                out.add("describe before the leader's sync", describe(q, names, group));
                out.add(
                        "list v5 before the leader's sync",
                        ClassicGroupRequests.list(q.raw(), (short) 5, group, List.of(), List.of()));
                out.add("A heartbeat before its sync", a.heartbeat(HEARTBEAT));
                out.add("A sync v5", a.syncAssigning("asg-A"));
                out.add("describe stable", describe(q, names, group));
                out.add("A heartbeat", a.heartbeat(HEARTBEAT));
                out.add("A sync v5 again", a.syncNothing());
            }
            short oldest = joinVersions(target)[0];
            for (short v = oldest; v <= JOIN; v++) {
                String other = group("join-v" + v);
                try (var x = ClassicGroupMember.open(target, other, "X" + v, names)) {
                    out.add("join v" + v + " no member id", x.describeJoin(x.join(v)));
                }
            }
        });
    }

    /**
     * A second member joins a Stable group of one: its join waits (PreparingRebalance) until the
     * first rejoins, whose heartbeat says REBALANCE_IN_PROGRESS; the leader alone learns the
     * members; a follower's SyncGroup waits for the leader's; a member the leader's assignment
     * leaves out gets no bytes.
     */
    @Test
    void aSecondMemberWaitsForTheFirstToRejoinAndGetsItsAssignmentFromTheLeader() {
        compare("second", (target, out) -> {
            Names names = new Names();
            String group = group("second");
            Topic topic = topic(target, "classic-second");
            try (var a = ClassicGroupMember.open(target, group, "A", names);
                    var b = ClassicGroupMember.open(target, group, "B", names);
                    var q = ClassicGroupMember.open(target, group, "Q", names)) {
                a.protocols = List.of("range", "roundrobin");
                b.protocols = List.of("range", "roundrobin");
                out.add("A joins", a.describeJoin(a.joinFully(JOIN)));
                out.add("A syncs", a.syncAssigning("asg-A1"));
                var bJoin = b.startJoin(JOIN);
                awaitJoining(q, 2);
                out.add("describe while B waits", describe(q, names, group));
                out.add("A heartbeat while B waits", a.heartbeat(HEARTBEAT));
                out.add(
                        "A commit v8 at its generation while B waits",
                        ClassicGroupRequests.commit(
                                q.raw(), (short) 8, group, a.generation, a.memberId, null, topic, 1));
                out.add("A sync v5 while B waits", a.syncAssigning("asg-A1"));
                var aJoin = a.sendJoin(JOIN, a.joinRequest());
                out.add("A rejoins", a.describeJoin(a.receiveJoin(aJoin)));
                out.add("B's join", b.describeJoin(b.receiveJoin(bJoin)));
                var bSync = b.sendSync(SYNC, b.syncRequest(Map.of(), "range"));
                out.add("describe while B's sync waits", describe(q, names, group));
                out.add("A heartbeat before its sync", a.heartbeat(HEARTBEAT));
                out.add(
                        "A commit v8 before its sync",
                        ClassicGroupRequests.commit(
                                q.raw(), (short) 8, group, a.generation, a.memberId, null, topic, 2));
                out.add(
                        "A sync v4 leaving B out",
                        a.describeSync(a.sync((short) 4, a.syncRequest(Map.of(a, a.assignment("asg-A2")), "range"))));
                out.add("B's sync", b.describeSync(b.receiveSync(bSync)));
                out.add("describe stable", describe(q, names, group));
                out.add("list v4", ClassicGroupRequests.list(q.raw(), (short) 4, group, List.of(), List.of()));
                out.add("list v5", ClassicGroupRequests.list(q.raw(), (short) 5, group, List.of(), List.of()));
                out.add(
                        "list v5 type classic, state Stable",
                        ClassicGroupRequests.list(q.raw(), (short) 5, group, List.of("Stable"), List.of("classic")));
                out.add(
                        "list v5 type consumer",
                        ClassicGroupRequests.list(q.raw(), (short) 5, group, List.of(), List.of("consumer")));
                out.add("B heartbeat", b.heartbeat(HEARTBEAT));
                out.add("B sync v5 again in Stable", b.syncNothing());
            }
        });
    }

    /** The wrong generation, an unknown member, and a v5 SyncGroup naming another protocol, in a Stable group of two. */
    @Test
    void requestsOfTheWrongGenerationOrAnUnknownMemberAreRefusedInAStableGroup() {
        compare("stable-errors", (target, out) -> {
            Names names = new Names();
            String group = group("errors");
            Topic topic = topic(target, "classic-errors");
            try (var a = ClassicGroupMember.open(target, group, "A", names);
                    var b = ClassicGroupMember.open(target, group, "B", names);
                    var q = ClassicGroupMember.open(target, group, "Q", names)) {
                stablePair(out, q, a, b);
                String made = "made-up-" + UUID.randomUUID();
                names.nameMember(made, "made-up");
                int gen = a.generation;
                for (short v = oldest(a.raw(), ApiKeys.HEARTBEAT); v <= HEARTBEAT; v++) {
                    out.add("heartbeat v" + v + " generation+1", a.heartbeat(v, a.memberId, gen + 1, null));
                }
                out.add("heartbeat generation-1", a.heartbeat(HEARTBEAT, a.memberId, gen - 1, null));
                out.add("heartbeat generation -1", a.heartbeat(HEARTBEAT, a.memberId, -1, null));
                out.add("heartbeat unknown member", a.heartbeat(HEARTBEAT, made, gen, null));
                out.add("heartbeat empty member id", a.heartbeat(HEARTBEAT, "", gen, null));
                out.add("heartbeat unknown member, wrong generation", a.heartbeat(HEARTBEAT, made, gen + 1, null));
                var sync = a.syncRequest(Map.of(), "range");
                out.add(
                        "sync generation+1",
                        a.describeSync(a.sync(SYNC, sync.duplicate().setGenerationId(gen + 1))));
                out.add(
                        "sync unknown member",
                        a.describeSync(a.sync(SYNC, sync.duplicate().setMemberId(made))));
                out.add(
                        "sync v5 protocol type other",
                        a.describeSync(a.sync(SYNC, sync.duplicate().setProtocolType("other"))));
                out.add(
                        "sync v5 protocol name roundrobin",
                        a.describeSync(a.sync(SYNC, sync.duplicate().setProtocolName("roundrobin"))));
                out.add(
                        "sync v5 null protocol type and name",
                        a.describeSync(a.sync(
                                SYNC, sync.duplicate().setProtocolType(null).setProtocolName(null))));
                out.add(
                        "sync v4 protocol name roundrobin (not sent)",
                        a.describeSync(a.sync((short) 4, sync.duplicate().setProtocolName("roundrobin"))));
                for (short v : new short[] {2, 5, 7, 8, 9}) {
                    String at = "commit v" + v + " ";
                    out.add(at + "A at its generation", commit(q, v, group, gen, a.memberId, topic));
                    out.add(at + "A at generation+1", commit(q, v, group, gen + 1, a.memberId, topic));
                    out.add(at + "A at generation-1", commit(q, v, group, gen - 1, a.memberId, topic));
                    out.add(at + "unknown member", commit(q, v, group, gen, made, topic));
                    out.add(at + "generation -1, no member id", commit(q, v, group, -1, "", topic));
                    out.add(at + "generation -1, A's id", commit(q, v, group, -1, a.memberId, topic));
                }
                out.add(
                        "commit v10 by topic id, A at its generation",
                        commit(q, (short) 10, group, gen, a.memberId, topic));
                out.add("fetch v8", ClassicGroupRequests.fetch(q.raw(), (short) 8, group, null, -1, topic));
                out.add(
                        "fetch v9 A at its generation",
                        ClassicGroupRequests.fetch(q.raw(), (short) 9, group, a.memberId, gen, topic));
                out.add(
                        "fetch v9 no member, epoch -1",
                        ClassicGroupRequests.fetch(q.raw(), (short) 9, group, "", -1, topic));
                out.add(
                        "fetch v9 unknown member",
                        ClassicGroupRequests.fetch(q.raw(), (short) 9, group, made, gen, topic));
                out.add(
                        "fetch v9 A at generation+1",
                        ClassicGroupRequests.fetch(q.raw(), (short) 9, group, a.memberId, gen + 1, topic));
                out.add("A heartbeat after all that", a.heartbeat(HEARTBEAT));
                out.add("B heartbeat after all that", b.heartbeat(HEARTBEAT));
            }
        });
    }

    /** Three members whose preferences differ: the protocol most members prefer among those all support. */
    @Test
    void theProtocolIsTheOneMostMembersPreferAmongThoseAllSupport() {
        compare("protocol", (target, out) -> {
            Names names = new Names();
            String group = group("protocol");
            try (var a = ClassicGroupMember.open(target, group, "A", names);
                    var b = ClassicGroupMember.open(target, group, "B", names);
                    var c = ClassicGroupMember.open(target, group, "C", names);
                    var q = ClassicGroupMember.open(target, group, "Q", names)) {
                a.protocols = List.of("range", "roundrobin", "sticky");
                b.protocols = List.of("sticky", "roundrobin", "range");
                c.protocols = List.of("roundrobin", "range");
                out.add("A joins", a.describeJoin(a.joinFully(JOIN)));
                var bJoin = b.startJoin(JOIN);
                var cJoin = c.startJoin(JOIN);
                awaitJoining(q, 3);
                var aJoin = a.sendJoin(JOIN, a.joinRequest());
                out.add("A rejoins", a.describeJoin(a.receiveJoin(aJoin)));
                out.add("B", b.describeJoin(b.receiveJoin(bJoin)));
                out.add("C", c.describeJoin(c.receiveJoin(cJoin)));
                out.add("A sync naming sticky", a.describeSync(a.sync(SYNC, a.syncRequest(Map.of(), "sticky"))));
                out.add("describe", describe(q, names, group));
            }
        });
    }

    /**
     * JoinGroups the coordinator refuses (or not), each into a new group of its own (then whether
     * that group now exists) and into a Stable group of one (which must stay Stable).
     */
    @Test
    void joinsWithBadSettingsOrUnknownMemberIdsAreRefused() {
        compare("bad-joins", (target, out) -> {
            Names names = new Names();
            String group = group("bad-joins");
            String made = "made-up-" + UUID.randomUUID();
            names.nameMember(made, "made-up");
            try (var a = ClassicGroupMember.open(target, group, "A", names);
                    var x = ClassicGroupMember.open(target, group, "X", names);
                    var q = ClassicGroupMember.open(target, group, "Q", names)) {
                out.add("A joins", a.describeJoin(a.joinFully(JOIN)));
                out.add("A syncs", a.syncNothing());
                Map<String, java.util.function.UnaryOperator<JoinGroupRequestData>> cases = new LinkedHashMap<>();
                cases.put("protocol type other", r -> r.setProtocolType("other"));
                cases.put("empty protocol type", r -> r.setProtocolType(""));
                cases.put(
                        "no protocols",
                        r -> r.setProtocols(new JoinGroupRequestData.JoinGroupRequestProtocolCollection()));
                cases.put("only roundrobin", r -> {
                    r.protocols().clear();
                    r.protocols()
                            .add(new JoinGroupRequestData.JoinGroupRequestProtocol()
                                    .setName("roundrobin")
                                    .setMetadata(x.metadata));
                    return r;
                });
                cases.put("session 5999", r -> r.setSessionTimeoutMs(5999));
                cases.put("session 1800001", r -> r.setSessionTimeoutMs(1_800_001));
                cases.put("session 6000", r -> r.setSessionTimeoutMs(6000));
                cases.put(
                        "session 5999, protocol type other",
                        r -> r.setSessionTimeoutMs(5999).setProtocolType("other"));
                cases.put(
                        "session 5999, made-up member id",
                        r -> r.setSessionTimeoutMs(5999).setMemberId(made));
                cases.put("made-up member id", r -> r.setMemberId(made));
                cases.put(
                        "made-up member id, protocol type other",
                        r -> r.setMemberId(made).setProtocolType("other"));
                // (-5 is left out: whether Kafka keeps the new group after that MEMBER_ID_REQUIRED
                // varied between runs)
                cases.put("rebalance timeout 0", r -> r.setRebalanceTimeoutMs(0));
                for (var c : cases.entrySet()) {
                    // at v3 a rebalance timeout of 0 removes the member at once (its pending
                    // sync expires): a race with the DescribeGroups after it, so v9 only
                    boolean v9Only = c.getKey().startsWith("rebalance timeout");
                    for (short v : v9Only ? new short[] {JOIN} : new short[] {3, JOIN}) {
                        String fresh = group("bad-joins-new");
                        var into = c.getValue()
                                .apply(x.joinRequest().setMemberId("").setGroupId(fresh));
                        var answer = x.join(v, into);
                        out.add("new group, v" + v + ", " + c.getKey(), x.describeJoin(answer));
                        out.add(
                                "  then the new group",
                                answer.errorCode() != Errors.NONE.code()
                                        ? refusedJoinsOnly(q, fresh)
                                        : briefly(q, fresh));
                    }
                    // v9 only: a join the Stable group accepts is MEMBER_ID_REQUIRED, where v3 would wait
                    var stable =
                            c.getValue().apply(x.joinRequest().setMemberId("").setGroupId(group));
                    out.add("stable group, v9, " + c.getKey(), x.describeJoin(x.join(JOIN, stable)));
                }
                out.add("stable group after all that", describe(q, names, group));
                out.add("A heartbeat after the refused joins", a.heartbeat(HEARTBEAT));
                var base = x.joinRequest().setMemberId("");
                out.add(
                        "empty group id v9 no member id",
                        x.describeJoin(x.join(JOIN, base.duplicate().setGroupId(""))));
                out.add(
                        "empty group id v3 no member id",
                        x.describeJoin(x.join((short) 3, base.duplicate().setGroupId(""))));
            }
        });
    }

    /**
     * Waits until the coordinator has taken in the joins just sent on other connections: the
     * group lists {@code count} members and is rebalancing. A join on one connection and a request
     * on another are not ordered otherwise.
     */
    static void awaitJoining(ClassicGroupMember q, int count) {
        Awaitility.await(count + " members in " + q.group + ", rebalancing")
                .atMost(Clients.PATIENCE)
                .pollInterval(Duration.ofMillis(50))
                .until(
                        () -> ClassicGroupRequests.describeData(q.raw(), DESCRIBE, q.group),
                        g -> g.members().size() == count && g.groupState().equals("PreparingRebalance"));
    }

    /** A group's error and state, as DescribeGroups v6 says. */
    static String briefly(ClassicGroupMember q, String group) throws Exception {
        var g = ClassicGroupRequests.describeData(q.raw(), DESCRIBE, group);
        return Errors.forCode(g.errorCode()) + " " + g.groupState() + " members="
                + g.members().size();
    }

    /**
     * A new group whose only join was refused (MEMBER_ID_REQUIRED: it holds nothing but a pending
     * member; or an error: it holds nothing). Apache Kafka describes such a group as Empty in most
     * runs and as Dead (GROUP_ID_NOT_FOUND) in some (seen in CI for a rebalance timeout of 0, and on
     * a loaded machine for a v3 join without protocols), so both count as the same outcome here;
     * any other answer is kept as it is.
     */
    static String refusedJoinsOnly(ClassicGroupMember q, String group) throws Exception {
        String seen = briefly(q, group);
        return seen.equals("NONE Empty members=0") || seen.equals("GROUP_ID_NOT_FOUND Dead members=0")
                ? "empty or gone"
                : seen;
    }

    /** DescribeGroups at the newest version on Q's connection. */
    static String describe(ClassicGroupMember q, Names names, String group) throws Exception {
        return ClassicGroupRequests.describe(q.raw(), names, DESCRIBE, group);
    }

    static Errors commit(ClassicGroupMember q, short version, String group, int generation, String member, Topic topic)
            throws Exception {
        return ClassicGroupRequests.commit(q.raw(), version, group, generation, member, null, topic, 1);
    }

    /** A and B in a Stable group: A joins and syncs alone, B joins, A rejoins as leader and both sync. */
    static void stablePair(Differential.Outcome out, ClassicGroupMember q, ClassicGroupMember a, ClassicGroupMember b)
            throws Exception {
        out.add("A joins", a.describeJoin(a.joinFully(JOIN)));
        out.add("A syncs", a.syncAssigning("asg-A1"));
        var bJoin = b.startJoin(JOIN);
        awaitJoining(q, 2);
        JoinGroupResponseData aJoin = a.join(JOIN);
        out.add("A rejoins", a.describeJoin(aJoin));
        out.add("B's join", b.describeJoin(b.receiveJoin(bJoin)));
        syncLeaderAndFollower(out, "", a, "asg-A2", b, "asg-B2");
    }

    /**
     * The follower's SyncGroup first (it waits), then the leader's handing out the named
     * assignments, then the follower's answer: each written down with {@code label} before it.
     */
    static void syncLeaderAndFollower(
            Differential.Outcome out,
            String label,
            ClassicGroupMember leader,
            String leaderAssignment,
            ClassicGroupMember follower,
            String followerAssignment)
            throws Exception {
        var followerSync = follower.sendSync(SYNC, follower.syncRequest(Map.of(), "range"));
        out.add(label + leader.name + " syncs", leader.syncAssigning(leaderAssignment, follower, followerAssignment));
        out.add(label + follower.name + "'s sync", follower.describeSync(follower.receiveSync(followerSync)));
    }

    /** A new one-partition topic for the commits. */
    static Topic topic(KafkaTarget target, String prefix) throws Exception {
        String name = Clients.uniqueTopic(prefix);
        try (Admin admin = target.admin()) {
            Uuid id = Clients.createTopic(admin, name, 1).topicId();
            return new Topic(name, id);
        }
    }

    /** The oldest version of {@code api} the broker offers. */
    static short oldest(RawKafka raw, ApiKeys api) {
        return Short.parseShort(raw.offered(api).split("\\.\\.")[0]);
    }

    /** The oldest and newest JoinGroup versions the target offers. */
    static short[] joinVersions(KafkaTarget target) throws Exception {
        try (RawKafka raw = RawKafka.open(target.ports().getFirst())) {
            String[] range = raw.offered(ApiKeys.JOIN_GROUP).split("\\.\\.");
            return new short[] {Short.parseShort(range[0]), Short.parseShort(range[1])};
        }
    }
}
