package io.tributary.systemtests.kafka;

import static io.tributary.systemtests.kafka.ClassicGroupProtocolIT.HEARTBEAT;
import static io.tributary.systemtests.kafka.ClassicGroupProtocolIT.JOIN;
import static io.tributary.systemtests.kafka.ClassicGroupProtocolIT.SYNC;

import io.tributary.systemtests.kafka.ClassicGroupMember.Names;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Differential, as {@link ClassicGroupProtocolIT}: what the coordinator does when a classic member
 * goes quiet — its session expires, it does not rejoin within the rebalance timeout, or it joins
 * and never syncs. Kafka's minimum session timeout (6 s) and a 5 s rebalance timeout keep each
 * scenario to seconds. How long anything took is never written down: the scenarios wait for the
 * state with Awaitility (the live member's heartbeat turning REBALANCE_IN_PROGRESS, or the waiting
 * JoinGroup being answered) and record only states, errors and who is left.
 *
 * <p>Each scenario runs on every target at the same time ({@link
 * ClassicGroupProtocolIT#compareAtOnce}): it is a few requests on raw connections around one wait
 * for a timeout, so the targets' waits overlap rather than add up, and the load of the others does
 * not come near the timeouts (seconds, against requests that take milliseconds).
 */
@OnSharedTargets
class ClassicGroupTimeoutsIT {

    /** Kafka's minimum session timeout ({@code group.min.session.timeout.ms}). */
    private static final int SHORT_SESSION_MS = 6_000;

    /**
     * A rebalance timeout the scenarios wait out. It also bounds the time between a JoinGroup's
     * answer and the member's SyncGroup (the coordinator removes a member that has not synced by
     * then), so it is well above a request's round trip on a loaded machine.
     */
    private static final int SHORT_REBALANCE_MS = 5_000;

    /** Longer than any scenario: a member that should not expire does not. */
    private static final int LONG_MS = 60_000;

    /**
     * How long a scenario waits for a timeout to take effect: well above the 6 s session and 5 s
     * rebalance timeouts, and below {@link #LONG_MS}, so that a member removed for not syncing is
     * not mistaken for one whose (long) session expired.
     */
    private static final Duration WAIT = Duration.ofSeconds(30);

    /**
     * B stops heartbeating; A goes on until its heartbeat says REBALANCE_IN_PROGRESS (B's session
     * expired); A rejoins alone.
     */
    @Test
    void aMemberThatStopsHeartbeatingExpiresAfterItsSessionTimeout() {
        ClassicGroupProtocolIT.compareAtOnce("session-expiry", (target, out) -> {
            Names names = new Names();
            String group = ClassicGroupProtocolIT.group("session");
            try (var a = ClassicGroupMember.open(target, group, "A", names);
                    var b = ClassicGroupMember.open(target, group, "B", names);
                    var q = ClassicGroupMember.open(target, group, "Q", names)) {
                a.rebalanceTimeoutMs = LONG_MS;
                b.rebalanceTimeoutMs = LONG_MS;
                b.sessionTimeoutMs = SHORT_SESSION_MS;
                ClassicGroupProtocolIT.stablePair(out, q, a, b);
                out.add("A heartbeat until B expires", awaitHeartbeat(a, Errors.REBALANCE_IN_PROGRESS));
                out.add("describe", ClassicGroupProtocolIT.describe(q, names, group));
                out.add("B heartbeat", b.heartbeat(HEARTBEAT));
                out.add("A rejoins", a.describeJoin(a.join(JOIN)));
                out.add("A syncs", a.syncAssigning("asg-A3"));
                out.add("B joins with its old id", b.describeJoin(b.join(JOIN)));
                out.add("describe", ClassicGroupProtocolIT.describe(q, names, group));
            }
        });
    }

    /**
     * C joins a Stable group of A and B; A rejoins, B neither rejoins nor heartbeats: the
     * rebalance completes when the rebalance timeout passes, without B.
     */
    @Test
    void aMemberThatDoesNotRejoinIsRemovedWhenTheRebalanceTimesOut() {
        ClassicGroupProtocolIT.compareAtOnce("rebalance-timeout", (target, out) -> {
            Names names = new Names();
            String group = ClassicGroupProtocolIT.group("rebalance");
            try (var a = ClassicGroupMember.open(target, group, "A", names);
                    var b = ClassicGroupMember.open(target, group, "B", names);
                    var c = ClassicGroupMember.open(target, group, "C", names);
                    var q = ClassicGroupMember.open(target, group, "Q", names)) {
                for (var m : new ClassicGroupMember[] {a, b, c}) {
                    m.sessionTimeoutMs = LONG_MS;
                    m.rebalanceTimeoutMs = SHORT_REBALANCE_MS;
                }
                ClassicGroupProtocolIT.stablePair(out, q, a, b);
                var cJoin = c.startJoin(JOIN);
                ClassicGroupProtocolIT.awaitJoining(q, 3);
                var aJoin = a.sendJoin(JOIN, a.joinRequest());
                // both answers come once the rebalance timeout has passed without B
                out.add("A rejoins", a.describeJoin(a.receiveJoin(aJoin)));
                out.add("C's join", c.describeJoin(c.receiveJoin(cJoin)));
                ClassicGroupProtocolIT.syncLeaderAndFollower(out, "", a, "asg-A3", c, "asg-C3");
                out.add("B heartbeat", b.heartbeat(HEARTBEAT));
                out.add("B rejoins with its old id", b.describeJoin(b.join(JOIN)));
                out.add("describe", ClassicGroupProtocolIT.describe(q, names, group));
            }
        });
    }

    /**
     * A follower joins and never sends SyncGroup: once the rebalance timeout passes, the
     * coordinator removes it and rebalances again (the leader's heartbeat says so).
     */
    @Test
    void aFollowerThatNeverSyncsIsRemovedAfterTheRebalanceTimeout() {
        ClassicGroupProtocolIT.compareAtOnce("follower-never-syncs", (target, out) -> {
            Names names = new Names();
            String group = ClassicGroupProtocolIT.group("no-sync");
            try (var a = ClassicGroupMember.open(target, group, "A", names);
                    var b = ClassicGroupMember.open(target, group, "B", names);
                    var q = ClassicGroupMember.open(target, group, "Q", names)) {
                for (var m : new ClassicGroupMember[] {a, b}) {
                    m.sessionTimeoutMs = LONG_MS;
                    m.rebalanceTimeoutMs = SHORT_REBALANCE_MS;
                }
                out.add("A joins", a.describeJoin(a.joinFully(JOIN)));
                out.add("A syncs", a.syncAssigning("asg-A1"));
                var bJoin = b.startJoin(JOIN);
                ClassicGroupProtocolIT.awaitJoining(q, 2);
                out.add("A rejoins", a.describeJoin(a.join(JOIN)));
                out.add("B's join", b.describeJoin(b.receiveJoin(bJoin)));
                out.add("A syncs", a.syncAssigning("asg-A2", b, "asg-B2"));
                out.add("describe before B's time is up", ClassicGroupProtocolIT.describe(q, names, group));
                out.add("A heartbeat until B is removed", awaitHeartbeat(a, Errors.REBALANCE_IN_PROGRESS));
                out.add("B heartbeat", b.heartbeat(HEARTBEAT));
                out.add("B syncs late", b.syncNothing());
                out.add("A rejoins", a.describeJoin(a.join(JOIN)));
                out.add("describe", ClassicGroupProtocolIT.describe(q, names, group));
            }
        });
    }

    /**
     * The leader joins and never syncs, while the follower's SyncGroup waits for it: once the
     * rebalance timeout passes, what the waiting follower is told, and what is left of the group.
     */
    @Test
    void aLeaderThatNeverSyncsIsRemovedAfterTheRebalanceTimeout() {
        ClassicGroupProtocolIT.compareAtOnce("leader-never-syncs", (target, out) -> {
            Names names = new Names();
            String group = ClassicGroupProtocolIT.group("no-leader-sync");
            try (var a = ClassicGroupMember.open(target, group, "A", names);
                    var b = ClassicGroupMember.open(target, group, "B", names);
                    var q = ClassicGroupMember.open(target, group, "Q", names)) {
                for (var m : new ClassicGroupMember[] {a, b}) {
                    m.sessionTimeoutMs = LONG_MS;
                    m.rebalanceTimeoutMs = SHORT_REBALANCE_MS;
                }
                out.add("A joins", a.describeJoin(a.joinFully(JOIN)));
                out.add("A syncs", a.syncAssigning("asg-A1"));
                var bJoin = b.startJoin(JOIN);
                ClassicGroupProtocolIT.awaitJoining(q, 2);
                out.add("A rejoins", a.describeJoin(a.join(JOIN)));
                out.add("B's join", b.describeJoin(b.receiveJoin(bJoin)));
                // B's SyncGroup waits for the leader's, which never comes
                var bSync = b.sendSync(SYNC, b.syncRequest(Map.of(), "range"));
                out.add("B's sync once A's time is up", b.describeSync(b.receiveSync(bSync)));
                // at once: B too must rejoin within the rebalance timeout
                out.add("B rejoins", b.describeJoin(b.join(JOIN)));
                out.add("B syncs", b.syncAssigning("asg-B3"));
                out.add("A heartbeat", a.heartbeat(HEARTBEAT));
                out.add("A rejoins with its old id", a.describeJoin(a.join(JOIN)));
                out.add("describe", ClassicGroupProtocolIT.describe(q, names, group));
            }
        });
    }

    /**
     * Heartbeats {@code member} every 300 ms until it answers {@code expected} (and fails on any
     * answer other than NONE and that); returns what it answered.
     */
    private static Errors awaitHeartbeat(ClassicGroupMember member, Errors expected) {
        return Awaitility.await(member.name + "'s heartbeat answers " + expected)
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(300))
                .until(
                        () -> {
                            Errors error = member.heartbeat(HEARTBEAT);
                            if (error != Errors.NONE && error != expected) {
                                throw new AssertionError(member.name + "'s heartbeat answered " + error);
                            }
                            return error;
                        },
                        error -> error == expected);
    }
}
