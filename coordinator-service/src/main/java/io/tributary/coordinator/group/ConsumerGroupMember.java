package io.tributary.coordinator.group;

import com.google.re2j.Pattern;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * One member of a {@link ConsumerGroup} as the coordinator holds it: what it sent (ids, rack,
 * client, rebalance timeout, subscription, server assignor), where it is in reconciling (epochs,
 * state, what it owns) and its deadlines. Mutable; changed only by the {@link GroupCoordinator} (and
 * the classes it delegates to) under its lock. What it owns is changed only through {@link
 * OwnershipIndex#set}, which keeps the group's index exact.
 */
final class ConsumerGroupMember {

    final String memberId;
    String instanceId;
    String rackId;
    String clientId = "";
    String clientHost = "";
    int rebalanceTimeoutMs;
    List<String> subscribedTopicNames = List.of();
    String subscribedTopicRegex;
    Pattern regex;
    String serverAssignor;
    int memberEpoch;
    int previousMemberEpoch;
    MemberState state = MemberState.STABLE;
    SortedSet<TopicIdPartition> assigned = new TreeSet<>();
    SortedSet<TopicIdPartition> pendingRevocation = new TreeSet<>();

    /**
     * The member epoch at which each owned partition (assigned or pending revocation) was given to
     * this member (KIP-1251): a commit at an older member epoch is accepted for a partition owned
     * since that epoch or before.
     */
    final Map<TopicIdPartition, Integer> assignmentEpochs = new HashMap<>();

    long sessionDeadlineMs;
    long rebalanceDeadlineMs = Long.MAX_VALUE;

    /**
     * What a member speaking the classic protocol (JoinGroup, SyncGroup, Heartbeat) sent besides;
     * null for a member speaking ConsumerGroupHeartbeat ({@link ClassicProtocolMembers}).
     */
    ClassicMemberMetadata classic;

    /** A classic member told to join again (REBALANCE_IN_PROGRESS) is removed if it has not by then. */
    long classicJoinDeadlineMs = Long.MAX_VALUE;

    /** A classic member that joined is removed if it has not sent its SyncGroup by then. */
    long classicSyncDeadlineMs = Long.MAX_VALUE;

    ConsumerGroupMember(String memberId) {
        this.memberId = memberId;
    }

    boolean usesClassicProtocol() {
        return classic != null;
    }

    /** Moves the member to {@code epoch}, remembering the one it leaves as the previous epoch. */
    void setEpoch(int epoch) {
        if (epoch != memberEpoch) {
            previousMemberEpoch = memberEpoch;
            memberEpoch = epoch;
        }
    }
}
