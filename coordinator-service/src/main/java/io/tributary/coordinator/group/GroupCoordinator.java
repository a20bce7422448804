package io.tributary.coordinator.group;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer-group state machine of KIP-848 (server-side assignment), in memory on the
 * coordinator leader: groups, members, the group epoch, the target assignment and its epoch, member
 * epochs, and the incremental reconciliation of each member towards its target.
 *
 * <h2>Epochs</h2>
 *
 * The group epoch goes up whenever what the assignment depends on changes: a member joins or is
 * removed, a subscription or the group's assignor changes, or a subscribed topic is created,
 * deleted or grows. The target assignment is recomputed (by the group's {@link Assignor}) when the
 * group epoch is ahead of the assignment epoch, and then takes the group epoch. A member's epoch is
 * the assignment epoch it has reconciled to.
 *
 * <h2>Reconciliation, and why a partition never has two owners</h2>
 *
 * A member owns its {@code assigned} partitions and those {@code pendingRevocation}. On each of its
 * heartbeats a member behind the target moves towards it (Kafka's {@code CurrentAssignmentBuilder}):
 *
 * <ul>
 *   <li>assigned partitions no longer in its target become pending revocation, and the member stays
 *       at its epoch ({@link MemberState#UNREVOKED_PARTITIONS}) until a heartbeat at that epoch no
 *       longer lists them in {@code TopicPartitions}; only then are they released;
 *   <li>a target partition is added to {@code assigned} only if no other member owns it (assigned
 *       or pending revocation); otherwise the member waits for it at the target epoch ({@link
 *       MemberState#UNRELEASED_PARTITIONS}).
 * </ul>
 *
 * So a partition moves from A to B only after A's heartbeat said it no longer owns it, or after A
 * was removed (left, session timeout, rebalance timeout: A's commits are then refused, its member
 * id being unknown). {@link #owners} indexes ownership and is checked on every change.
 *
 * <h2>Leadership</h2>
 *
 * Membership is not replicated. A coordinator that loses leadership calls {@link #clear}; members
 * get UNKNOWN_MEMBER_ID from the new leader and join it again with epoch 0 (as KIP-848 clients
 * do); that is for a session timeout after the new leader took over ({@link #clear(long)}), after
 * which a member of a group unknown here gets Kafka's GROUP_ID_NOT_FOUND. What keeps a member's request from before a failover out is that the member is unknown
 * until it joins again with epoch 0, and a client's requests to the new leader go over one
 * connection in order. As defence in depth a group created here starts at an epoch taken from the
 * clock (seconds since 2024), not at 1, so a new leader seldom hands out the epochs an old one did
 * (it can, for a group re-created within the same second or one that rebalanced more often than
 * once a second).
 *
 * <h2>Thread-safety</h2>
 *
 * Every public method is {@code synchronized}; the lock is held only for in-memory work (no I/O).
 * Time is a parameter ({@code nowMs}), never read here.
 */
public final class GroupCoordinator {

    private static final Logger log = LoggerFactory.getLogger(GroupCoordinator.class);

    /** 2024-01-01T00:00:00Z: group epochs of new groups count seconds from here. */
    static final long EPOCH_BASE_MS = 1_704_067_200_000L;

    /** Member ids of a group visit order, to keep every result deterministic. */
    private final Map<String, Group> groups = new TreeMap<>();

    private final GroupConfig config;
    private final TopicView topics;

    /** When {@link #clear(long)} last forgot every group; {@code Long.MIN_VALUE}: never. */
    private long forgottenAtMs = Long.MIN_VALUE;

    public GroupCoordinator(GroupConfig config, TopicView topics) {
        this.config = Objects.requireNonNull(config, "config");
        this.topics = Objects.requireNonNull(topics, "topics");
    }

    public GroupConfig config() {
        return config;
    }

    // ------------------------------------------------------------------------------------------
    // State

    private static final class Member {
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
         * The member epoch at which each owned partition (assigned or pending revocation) was given
         * to this member (KIP-1251): a commit at an older member epoch is accepted for a partition
         * owned since that epoch or before.
         */
        final Map<TopicIdPartition, Integer> assignmentEpochs = new HashMap<>();

        long sessionDeadlineMs;
        long rebalanceDeadlineMs = Long.MAX_VALUE;

        Member(String memberId) {
            this.memberId = memberId;
        }

        void setEpoch(int epoch) {
            if (epoch != memberEpoch) {
                previousMemberEpoch = memberEpoch;
                memberEpoch = epoch;
            }
        }
    }

    private static final class Group {
        final String groupId;
        int groupEpoch;
        int assignmentEpoch;
        String assignor;
        final Map<String, Member> members = new TreeMap<>();
        final Map<String, String> staticMembers = new HashMap<>();
        Map<String, SortedSet<TopicIdPartition>> target = new TreeMap<>();
        /** Every partition some member owns (assigned or pending revocation), and which member. */
        final Map<TopicIdPartition, String> owners = new HashMap<>();
        /** The subscribed topics the current target assignment was computed from. */
        SortedMap<String, TopicView.TopicInfo> subscribedTopics = new TreeMap<>();

        Group(String groupId, int initialEpoch, String assignor) {
            this.groupId = groupId;
            this.groupEpoch = initialEpoch;
            this.assignmentEpoch = initialEpoch;
            this.assignor = assignor;
        }

        void bump(String why) {
            groupEpoch++;
            log.debug("group {} epoch {}: {}", groupId, groupEpoch, why);
        }

        /**
         * Sets what a member owns, keeping {@link #owners} exact (two owners of one partition is a
         * bug) and the member's assignment epochs: a partition it already owned keeps its epoch, a
         * newly owned one gets {@code epochOfNew}.
         */
        void setOwnership(
                Member member,
                SortedSet<TopicIdPartition> assigned,
                SortedSet<TopicIdPartition> pending,
                int epochOfNew) {
            for (TopicIdPartition partition : member.assigned) {
                owners.remove(partition, member.memberId);
            }
            for (TopicIdPartition partition : member.pendingRevocation) {
                owners.remove(partition, member.memberId);
            }
            member.assigned = new TreeSet<>(assigned);
            member.pendingRevocation = new TreeSet<>(pending);
            for (TopicIdPartition partition : member.assigned) {
                claim(member, partition);
            }
            for (TopicIdPartition partition : member.pendingRevocation) {
                claim(member, partition);
            }
            member.assignmentEpochs
                    .keySet()
                    .removeIf(p -> !member.assigned.contains(p) && !member.pendingRevocation.contains(p));
            for (TopicIdPartition partition : union(member.assigned, member.pendingRevocation)) {
                member.assignmentEpochs.putIfAbsent(partition, epochOfNew);
            }
        }

        private void claim(Member member, TopicIdPartition partition) {
            String previous = owners.putIfAbsent(partition, member.memberId);
            if (previous != null && !previous.equals(member.memberId)) {
                throw new IllegalStateException("group %s: partition %s given to %s while %s owns it"
                        .formatted(groupId, partition, member.memberId, previous));
            }
        }

        void remove(Member member) {
            setOwnership(member, Collections.emptySortedSet(), Collections.emptySortedSet(), 0);
            members.remove(member.memberId);
            if (member.instanceId != null) {
                staticMembers.remove(member.instanceId, member.memberId);
            }
            target.remove(member.memberId);
        }

        String state() {
            if (members.isEmpty()) {
                return GroupDescription.EMPTY;
            }
            if (groupEpoch > assignmentEpoch) {
                return GroupDescription.ASSIGNING;
            }
            for (Member member : members.values()) {
                if (member.state != MemberState.STABLE || member.memberEpoch != assignmentEpoch) {
                    return GroupDescription.RECONCILING;
                }
            }
            return GroupDescription.STABLE;
        }
    }

    // ------------------------------------------------------------------------------------------
    // Heartbeat

    /**
     * Serves one ConsumerGroupHeartbeat.
     *
     * @throws GroupException with the Kafka error to answer (INVALID_REQUEST, GROUP_ID_NOT_FOUND, UNKNOWN_MEMBER_ID,
     *     FENCED_MEMBER_EPOCH, UNSUPPORTED_ASSIGNOR, UNRELEASED_INSTANCE_ID, FENCED_INSTANCE_ID,
     *     GROUP_MAX_SIZE_REACHED, INVALID_REGULAR_EXPRESSION, COORDINATOR_NOT_AVAILABLE)
     */
    public synchronized HeartbeatResponse heartbeat(HeartbeatRequest request, long nowMs) {
        validate(request);
        int epoch = request.memberEpoch();
        if (epoch == HeartbeatRequest.LEAVE_EPOCH || epoch == HeartbeatRequest.STATIC_LEAVE_EPOCH) {
            return leave(request, nowMs);
        }
        Group group = groups.get(request.groupId());
        if (group == null) {
            if (epoch != HeartbeatRequest.JOIN_EPOCH) {
                // GROUP_ID_NOT_FOUND as Kafka, unless this coordinator just became leader (then the
                // member must join again, which clients do on UNKNOWN_MEMBER_ID).
                throw unknownGroup(request.groupId(), request.memberId(), nowMs);
            }
            if (groups.size() >= config.maxGroups()) {
                evictAnEmptyGroup();
            }
            if (groups.size() >= config.maxGroups()) {
                throw new GroupException(
                        Errors.COORDINATOR_NOT_AVAILABLE,
                        "this coordinator already holds " + config.maxGroups()
                                + " groups (tributary.coordinator.groups.max-groups)");
            }
            group = new Group(request.groupId(), initialEpoch(nowMs), config.defaultAssignor());
            groups.put(group.groupId, group);
        }
        try {
            return heartbeat(group, request, nowMs);
        } finally {
            if (group.members.isEmpty() && group.groupEpoch == group.assignmentEpoch && group.target.isEmpty()) {
                // A join that failed leaves no empty group behind it.
                groups.remove(group.groupId, group);
            }
        }
    }

    /**
     * Makes room for a new group by forgetting one without members (its committed offsets, if any,
     * stay in the store; it shows as an offsets-only group).
     */
    private void evictAnEmptyGroup() {
        for (Group group : groups.values()) {
            if (group.members.isEmpty()) {
                groups.remove(group.groupId);
                log.info("group {}: forgotten (no members) to make room for a new group", group.groupId);
                return;
            }
        }
    }

    private HeartbeatResponse heartbeat(Group group, HeartbeatRequest request, long nowMs) {
        int epoch = request.memberEpoch();
        Member member = findOrJoin(group, request);
        boolean ackAllowed = epoch == HeartbeatRequest.JOIN_EPOCH || epoch == member.memberEpoch;
        if (epoch != HeartbeatRequest.JOIN_EPOCH) {
            checkEpoch(member, request);
        }
        SortedSet<TopicIdPartition> assignedBefore = new TreeSet<>(member.assigned);
        boolean subscriptionChanged = update(member, request);
        if (subscriptionChanged) {
            group.bump("member " + member.memberId + " subscription");
        }
        String assignor = chooseAssignor(group);
        if (!assignor.equals(group.assignor)) {
            group.assignor = assignor;
            group.bump("assignor " + assignor);
        }
        refreshTopics(group);
        computeTargetIfNeeded(group);
        Optional<SortedSet<TopicIdPartition>> owned = epoch == HeartbeatRequest.JOIN_EPOCH
                ? Optional.of(Collections.emptySortedSet())
                : request.ownedPartitions();
        reconcile(group, member, owned, ackAllowed, nowMs);
        member.sessionDeadlineMs = nowMs + config.sessionTimeout().toMillis();
        Optional<SortedSet<TopicIdPartition>> assignment = request.isFull() || !assignedBefore.equals(member.assigned)
                ? Optional.of(new TreeSet<>(member.assigned))
                : Optional.empty();
        return new HeartbeatResponse(member.memberId, member.memberEpoch, heartbeatIntervalMs(), assignment);
    }

    private int heartbeatIntervalMs() {
        return Math.toIntExact(config.heartbeatInterval().toMillis());
    }

    private static int initialEpoch(long nowMs) {
        long seconds = (nowMs - EPOCH_BASE_MS) / 1000;
        return (int) Math.max(1, Math.min(seconds, Integer.MAX_VALUE / 2));
    }

    private void validate(HeartbeatRequest request) {
        if (request.groupId().isEmpty()) {
            throw invalid("GroupId can't be empty");
        }
        checkLength("GroupId", request.groupId());
        checkLength("MemberId", request.memberId());
        request.instanceId().ifPresent(id -> checkLength("InstanceId", id));
        request.rackId().ifPresent(id -> checkLength("RackId", id));
        if (request.instanceId().filter(String::isEmpty).isPresent()) {
            throw invalid("InstanceId can't be empty");
        }
        if (request.rackId().filter(String::isEmpty).isPresent()) {
            throw invalid("RackId can't be empty");
        }
        if (request.memberId().isEmpty()) {
            throw invalid("MemberId can't be empty");
        }
        int epoch = request.memberEpoch();
        if (epoch < HeartbeatRequest.STATIC_LEAVE_EPOCH) {
            throw invalid("MemberEpoch " + epoch + " is invalid");
        }
        if (epoch == HeartbeatRequest.STATIC_LEAVE_EPOCH && request.instanceId().isEmpty()) {
            throw invalid("InstanceId can't be null when MemberEpoch is -2");
        }
        if (epoch == HeartbeatRequest.JOIN_EPOCH) {
            if (request.rebalanceTimeoutMs() == -1) {
                throw invalid("RebalanceTimeoutMs must be provided in first request");
            }
            if (request.ownedPartitions().isEmpty()
                    || !request.ownedPartitions().get().isEmpty()) {
                throw invalid("TopicPartitions must be empty when (re-)joining");
            }
            if (request.subscribedTopicNames().isEmpty()
                    && request.subscribedTopicRegex().isEmpty()) {
                throw invalid("SubscribedTopicNames or SubscribedTopicRegex must be set in first request");
            }
        }
        if (request.rebalanceTimeoutMs() < -1) {
            throw invalid("RebalanceTimeoutMs must be -1 or more");
        }
        request.subscribedTopicNames().ifPresent(names -> {
            if (names.size() > config.maxSubscribedTopics()) {
                throw invalid("at most " + config.maxSubscribedTopics()
                        + " subscribed topic names (tributary.coordinator.groups.max-subscribed-topics)");
            }
        });
        request.subscribedTopicRegex().ifPresent(this::compile);
        request.serverAssignor().ifPresent(name -> {
            if (Assignors.byName(name).isEmpty()) {
                throw new GroupException(
                        Errors.UNSUPPORTED_ASSIGNOR,
                        "ServerAssignor " + name + " is not supported; supported: " + new TreeSet<>(Assignors.NAMES));
            }
        });
    }

    private void checkLength(String field, String value) {
        if (value.length() > config.maxIdLength()) {
            throw invalid(field + " is longer than " + config.maxIdLength()
                    + " characters (tributary.coordinator.groups.max-id-length)");
        }
    }

    private static GroupException invalid(String message) {
        return new GroupException(Errors.INVALID_REQUEST, message);
    }

    /** The compiled regex, or null for the empty string (which clears a regex subscription). */
    private Pattern compile(String regex) {
        if (regex.isEmpty()) {
            return null;
        }
        if (regex.length() > config.maxRegexLength()) {
            throw new GroupException(
                    Errors.INVALID_REGULAR_EXPRESSION,
                    "SubscribedTopicRegex is longer than " + config.maxRegexLength()
                            + " characters (tributary.coordinator.groups.max-regex-length)");
        }
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new GroupException(
                    Errors.INVALID_REGULAR_EXPRESSION,
                    "SubscribedTopicRegex " + regex + " is not a valid RE2 regular expression: " + e.getMessage());
        }
    }

    private Member findOrJoin(Group group, HeartbeatRequest request) {
        int epoch = request.memberEpoch();
        Optional<String> instanceId = request.instanceId();
        if (instanceId.isPresent()) {
            String existingId = group.staticMembers.get(instanceId.get());
            Member existing = existingId == null ? null : group.members.get(existingId);
            if (epoch == HeartbeatRequest.JOIN_EPOCH) {
                if (existing == null) {
                    Member joined = join(group, request);
                    joined.instanceId = instanceId.get();
                    group.staticMembers.put(joined.instanceId, joined.memberId);
                    return joined;
                }
                if (existing.memberId.equals(request.memberId())) {
                    return existing;
                }
                if (existing.memberEpoch != HeartbeatRequest.STATIC_LEAVE_EPOCH) {
                    throw new GroupException(
                            Errors.UNRELEASED_INSTANCE_ID,
                            "static member " + request.memberId() + " with instance id " + instanceId.get()
                                    + " joins group " + group.groupId + " but member " + existing.memberId
                                    + " still holds that instance id");
                }
                return replaceStatic(group, existing, request.memberId());
            }
            if (existing == null) {
                throw new GroupException(
                        Errors.UNKNOWN_MEMBER_ID,
                        "instance id " + instanceId.get() + " is unknown in group " + group.groupId);
            }
            if (!existing.memberId.equals(request.memberId())) {
                throw new GroupException(
                        Errors.FENCED_INSTANCE_ID,
                        "instance id " + instanceId.get() + " belongs to member " + existing.memberId + ", not "
                                + request.memberId());
            }
            return existing;
        }
        Member member = group.members.get(request.memberId());
        if (member != null) {
            return member;
        }
        if (epoch != HeartbeatRequest.JOIN_EPOCH) {
            throw new GroupException(
                    Errors.UNKNOWN_MEMBER_ID,
                    "member " + request.memberId() + " is not in group " + group.groupId + ": join again");
        }
        return join(group, request);
    }

    private Member join(Group group, HeartbeatRequest request) {
        if (group.members.size() >= config.maxGroupSize()) {
            throw new GroupException(
                    Errors.GROUP_MAX_SIZE_REACHED,
                    "group " + group.groupId + " already has " + config.maxGroupSize()
                            + " members (tributary.coordinator.groups.max-group-size)");
        }
        Member member = new Member(request.memberId());
        group.members.put(member.memberId, member);
        group.bump("member " + member.memberId + " joined");
        log.info("group {}: member {} joined", group.groupId, member.memberId);
        return member;
    }

    /** A static member with a new member id takes over the assignment of one that left with epoch -2. */
    private Member replaceStatic(Group group, Member previous, String newMemberId) {
        if (group.members.containsKey(newMemberId)) {
            throw new GroupException(
                    Errors.FENCED_INSTANCE_ID,
                    "member id " + newMemberId + " is already in group " + group.groupId
                            + " under another instance id");
        }
        SortedSet<TopicIdPartition> assignment = new TreeSet<>(previous.assigned);
        SortedSet<TopicIdPartition> target = group.target.getOrDefault(previous.memberId, new TreeSet<>());
        Member member = new Member(newMemberId);
        member.instanceId = previous.instanceId;
        member.rackId = previous.rackId;
        member.rebalanceTimeoutMs = previous.rebalanceTimeoutMs;
        member.subscribedTopicNames = previous.subscribedTopicNames;
        member.subscribedTopicRegex = previous.subscribedTopicRegex;
        member.regex = previous.regex;
        member.serverAssignor = previous.serverAssignor;
        group.remove(previous);
        group.members.put(member.memberId, member);
        group.staticMembers.put(member.instanceId, member.memberId);
        group.target.put(member.memberId, target);
        // The previous instance left (it sent -2), so it owns nothing: its assignment is the new one's,
        // owned since epoch 0 (the new member id has committed nothing yet; the old one is gone).
        group.setOwnership(member, assignment, Collections.emptySortedSet(), 0);
        log.info(
                "group {}: static member {} replaces {} (instance id {})",
                group.groupId,
                newMemberId,
                previous.memberId,
                member.instanceId);
        return member;
    }

    private void checkEpoch(Member member, HeartbeatRequest request) {
        int received = request.memberEpoch();
        if (received > member.memberEpoch) {
            throw new GroupException(
                    Errors.FENCED_MEMBER_EPOCH,
                    "member " + member.memberId + " sent epoch " + received + " but is at epoch " + member.memberEpoch
                            + ": it must give up its partitions and join again");
        }
        if (received < member.memberEpoch) {
            // The response that moved the member to its current epoch may have been lost: the
            // previous epoch is accepted with owned partitions within the current assignment.
            boolean lostResponse = received == member.previousMemberEpoch
                    && request.ownedPartitions().isPresent()
                    && member.assigned.containsAll(request.ownedPartitions().get());
            if (!lostResponse) {
                throw new GroupException(
                        Errors.FENCED_MEMBER_EPOCH,
                        "member " + member.memberId + " sent epoch " + received + " but is at epoch "
                                + member.memberEpoch + ": it must give up its partitions and join again");
            }
        }
    }

    /** Applies the request's changed fields; returns whether the subscription changed. */
    private boolean update(Member member, HeartbeatRequest request) {
        boolean changed = false;
        request.rackId().ifPresent(rack -> member.rackId = rack);
        member.clientId = request.clientId();
        member.clientHost = request.clientHost();
        if (request.rebalanceTimeoutMs() != -1) {
            member.rebalanceTimeoutMs = (int) Math.min(
                    request.rebalanceTimeoutMs(), config.maxRebalanceTimeout().toMillis());
        }
        if (request.subscribedTopicNames().isPresent()) {
            List<String> names =
                    new ArrayList<>(new TreeSet<>(request.subscribedTopicNames().get()));
            if (!names.equals(member.subscribedTopicNames)) {
                member.subscribedTopicNames = List.copyOf(names);
                changed = true;
            }
        }
        if (request.subscribedTopicRegex().isPresent()) {
            String regex = request.subscribedTopicRegex().get();
            String normalized = regex.isEmpty() ? null : regex;
            if (!Objects.equals(normalized, member.subscribedTopicRegex)) {
                member.subscribedTopicRegex = normalized;
                member.regex = compile(regex);
                changed = true;
            }
        }
        if (request.serverAssignor().isPresent()) {
            member.serverAssignor = request.serverAssignor().get();
        }
        return changed;
    }

    /** The assignor most members ask for (ties: the first by name); the default when none asks. */
    private String chooseAssignor(Group group) {
        Map<String, Integer> votes = new TreeMap<>();
        for (Member member : group.members.values()) {
            if (member.serverAssignor != null) {
                votes.merge(member.serverAssignor, 1, Integer::sum);
            }
        }
        String best = config.defaultAssignor();
        int bestVotes = 0;
        for (Map.Entry<String, Integer> vote : votes.entrySet()) {
            if (vote.getValue() > bestVotes) {
                best = vote.getKey();
                bestVotes = vote.getValue();
            }
        }
        return best;
    }

    private SortedMap<String, TopicView.TopicInfo> subscribedTopics(
            Member member, Map<String, TopicView.TopicInfo> out) {
        SortedMap<String, TopicView.TopicInfo> result = new TreeMap<>();
        for (String name : member.subscribedTopicNames) {
            topics.byName(name).ifPresent(info -> result.put(name, info));
        }
        if (member.regex != null) {
            for (TopicView.TopicInfo info : topics.all()) {
                if (member.regex.matches(info.name())) {
                    result.put(info.name(), info);
                }
            }
        }
        out.putAll(result);
        return result;
    }

    /** Bumps the group epoch when a subscribed topic appeared, disappeared or changed. */
    private void refreshTopics(Group group) {
        // Each distinct name and regex is resolved once, however many members share it (members
        // of one group usually subscribe alike).
        Set<String> names = new TreeSet<>();
        Map<String, Pattern> regexes = new TreeMap<>();
        for (Member member : group.members.values()) {
            names.addAll(member.subscribedTopicNames);
            if (member.regex != null) {
                regexes.putIfAbsent(member.subscribedTopicRegex, member.regex);
            }
        }
        SortedMap<String, TopicView.TopicInfo> now = new TreeMap<>();
        for (String name : names) {
            topics.byName(name).ifPresent(info -> now.put(name, info));
        }
        if (!regexes.isEmpty()) {
            for (TopicView.TopicInfo info : topics.all()) {
                for (Pattern regex : regexes.values()) {
                    if (regex.matches(info.name())) {
                        now.put(info.name(), info);
                        break;
                    }
                }
            }
        }
        if (!now.equals(group.subscribedTopics)) {
            group.subscribedTopics = now;
            group.bump("subscribed topics changed");
        }
    }

    private void computeTargetIfNeeded(Group group) {
        if (group.groupEpoch <= group.assignmentEpoch) {
            return;
        }
        SortedMap<String, Assignor.MemberSpec> specs = new TreeMap<>();
        SortedMap<UUID, Integer> counts = new TreeMap<>();
        for (Member member : group.members.values()) {
            SortedMap<String, TopicView.TopicInfo> subscribed = subscribedTopics(member, new HashMap<>());
            Set<UUID> ids = new HashSet<>();
            for (TopicView.TopicInfo info : subscribed.values()) {
                ids.add(info.id());
                counts.put(info.id(), info.partitionCount());
            }
            specs.put(
                    member.memberId,
                    new Assignor.MemberSpec(ids, group.target.getOrDefault(member.memberId, new TreeSet<>())));
        }
        Assignor assignor = Assignors.byName(group.assignor).orElseThrow();
        group.target = new TreeMap<>(assignor.assign(new Assignor.Spec(specs, counts)));
        group.assignmentEpoch = group.groupEpoch;
        log.debug(
                "group {}: target assignment at epoch {} by {}", group.groupId, group.assignmentEpoch, group.assignor);
    }

    private static boolean ownsAny(Optional<SortedSet<TopicIdPartition>> owned, Set<TopicIdPartition> partitions) {
        if (owned.isEmpty()) {
            return true;
        }
        for (TopicIdPartition partition : partitions) {
            if (owned.get().contains(partition)) {
                return true;
            }
        }
        return false;
    }

    /** Moves a member towards its target (Kafka's CurrentAssignmentBuilder), see the class comment. */
    private void reconcile(
            Group group, Member member, Optional<SortedSet<TopicIdPartition>> owned, boolean ackAllowed, long nowMs) {
        MemberState stateBefore = member.state;
        SortedSet<TopicIdPartition> pendingBefore = new TreeSet<>(member.pendingRevocation);
        switch (member.state) {
            case STABLE -> {
                if (member.memberEpoch != group.assignmentEpoch) {
                    computeNext(group, member, owned);
                }
            }
            case UNREVOKED_PARTITIONS -> {
                if (ackAllowed && !ownsAny(owned, member.pendingRevocation)) {
                    group.setOwnership(member, member.assigned, Collections.emptySortedSet(), member.memberEpoch);
                    computeNext(group, member, owned);
                }
            }
            case UNRELEASED_PARTITIONS -> computeNext(group, member, owned);
        }
        if (member.state == MemberState.UNREVOKED_PARTITIONS) {
            if (stateBefore != MemberState.UNREVOKED_PARTITIONS || !pendingBefore.equals(member.pendingRevocation)) {
                member.rebalanceDeadlineMs = nowMs + member.rebalanceTimeoutMs;
            }
        } else {
            member.rebalanceDeadlineMs = Long.MAX_VALUE;
        }
    }

    private void computeNext(Group group, Member member, Optional<SortedSet<TopicIdPartition>> owned) {
        SortedSet<TopicIdPartition> target = group.target.getOrDefault(member.memberId, Collections.emptySortedSet());
        SortedSet<TopicIdPartition> kept = new TreeSet<>(member.assigned);
        kept.retainAll(target);
        SortedSet<TopicIdPartition> revoke = new TreeSet<>(member.assigned);
        revoke.removeAll(kept);
        SortedSet<TopicIdPartition> toAssign = new TreeSet<>(target);
        toAssign.removeAll(kept);
        boolean unreleased = toAssign.removeIf(partition -> {
            String owner = group.owners.get(partition);
            return owner != null && !owner.equals(member.memberId);
        });
        if (!revoke.isEmpty() && ownsAny(owned, revoke)) {
            group.setOwnership(member, kept, revoke, member.memberEpoch);
            member.state = MemberState.UNREVOKED_PARTITIONS;
            return;
        }
        SortedSet<TopicIdPartition> assigned = new TreeSet<>(kept);
        assigned.addAll(toAssign);
        group.setOwnership(member, assigned, Collections.emptySortedSet(), group.assignmentEpoch);
        member.state = unreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE;
        member.setEpoch(group.assignmentEpoch);
    }

    private HeartbeatResponse leave(HeartbeatRequest request, long nowMs) {
        int epoch = request.memberEpoch();
        Group group = groups.get(request.groupId());
        Member member = group == null ? null : group.members.get(request.memberId());
        if (group != null && request.instanceId().isPresent()) {
            String holder = group.staticMembers.get(request.instanceId().get());
            if (holder != null && !holder.equals(request.memberId())) {
                throw new GroupException(
                        Errors.FENCED_INSTANCE_ID,
                        "instance id " + request.instanceId().get() + " belongs to member " + holder + ", not "
                                + request.memberId());
            }
        }
        if (member == null) {
            // Leaving a group one is not in is done already (e.g. after a coordinator failover).
            return new HeartbeatResponse(request.memberId(), epoch, heartbeatIntervalMs(), Optional.empty());
        }
        if (epoch == HeartbeatRequest.STATIC_LEAVE_EPOCH && member.instanceId != null) {
            // Kept, assignment and all, until it comes back or its session times out. What it was
            // revoking is released now: the process stopped consuming before it said goodbye.
            group.setOwnership(member, member.assigned, Collections.emptySortedSet(), 0);
            // As Kafka: what it keeps counts as owned since epoch 0 (whoever takes the instance id over).
            member.assignmentEpochs.replaceAll((partition, assignedAt) -> 0);
            member.state = MemberState.STABLE;
            member.setEpoch(HeartbeatRequest.STATIC_LEAVE_EPOCH);
            member.sessionDeadlineMs = nowMs + config.sessionTimeout().toMillis();
            member.rebalanceDeadlineMs = Long.MAX_VALUE;
            log.info(
                    "group {}: static member {} left for now (instance id {})",
                    group.groupId,
                    member.memberId,
                    member.instanceId);
            return new HeartbeatResponse(member.memberId, epoch, heartbeatIntervalMs(), Optional.empty());
        }
        removeMember(group, member, "left");
        return new HeartbeatResponse(
                request.memberId(), HeartbeatRequest.LEAVE_EPOCH, heartbeatIntervalMs(), Optional.empty());
    }

    private void removeMember(Group group, Member member, String why) {
        group.remove(member);
        group.bump("member " + member.memberId + " " + why);
        log.info("group {}: member {} {}", group.groupId, member.memberId, why);
    }

    // ------------------------------------------------------------------------------------------
    // Timers

    /**
     * Removes members whose session or rebalance timeout passed, and bumps the epoch of groups whose
     * subscribed topics changed. Called periodically on the leader (the wiring's tick).
     *
     * @return how many members were removed
     */
    public synchronized int tick(long nowMs) {
        int removed = 0;
        for (Group group : groups.values()) {
            for (Member member : List.copyOf(group.members.values())) {
                if (nowMs > member.sessionDeadlineMs) {
                    removeMember(group, member, "removed: session timeout");
                    removed++;
                } else if (member.state == MemberState.UNREVOKED_PARTITIONS && nowMs > member.rebalanceDeadlineMs) {
                    removeMember(
                            group,
                            member,
                            "removed: did not revoke " + member.pendingRevocation + " within its rebalance timeout of "
                                    + member.rebalanceTimeoutMs + " ms");
                    removed++;
                }
            }
            refreshTopics(group);
        }
        return removed;
    }

    /** Forgets every group (this coordinator lost leadership; members join the new leader). */
    public synchronized void clear() {
        if (!groups.isEmpty()) {
            log.info("dropping the membership of {} groups: no longer the group coordinator", groups.size());
        }
        groups.clear();
    }

    /**
     * Forgets every group, at {@code nowMs}: for a session timeout from then, a member of a group
     * unknown here is told UNKNOWN_MEMBER_ID (join again), not Kafka's GROUP_ID_NOT_FOUND, which
     * is fatal to a consumer, since it may be a member from before this coordinator took over.
     */
    public synchronized void clear(long nowMs) {
        clear();
        forgottenAtMs = nowMs;
    }

    // ------------------------------------------------------------------------------------------
    // Offsets

    /** Who an accepted offset commit came from. */
    public enum Committer {
        /** No member: an admin client or a consumer without group management, into a group with no members. */
        ADMIN,
        /** A member of the group at its current epoch. */
        MEMBER
    }

    /**
     * Whether an OffsetCommit may be applied (KIP-848 rules, with KIP-1251's assignment epochs, as
     * Kafka 4.4's group coordinator):
     *
     * <ul>
     *   <li>member epoch -1 (any negative) into a group with no members, or one unknown here: an
     *       admin client or a consumer without group management ({@link Committer#ADMIN});
     *   <li>a group unknown here and epoch 0 or more: GROUP_ID_NOT_FOUND, as Kafka; but
     *       UNKNOWN_MEMBER_ID within a session timeout of this coordinator forgetting its groups
     *       ({@link #clear(long)}: it just became leader), as the member may be from before the
     *       failover, and UNKNOWN_MEMBER_ID makes it join again where GROUP_ID_NOT_FOUND is fatal
     *       to a consumer;
     *   <li>a member id not in the group: UNKNOWN_MEMBER_ID (a removed member's commits are refused);
     *   <li>the member's current epoch: accepted;
     *   <li>a newer epoch: STALE_MEMBER_EPOCH;
     *   <li>an older epoch (the client had not seen the heartbeat response that moved it on when it
     *       sent the commit): accepted only if every committed partition is owned by the member
     *       (assigned or pending revocation) since that epoch or before; else STALE_MEMBER_EPOCH. A
     *       partition that moved to another member in between was released by this one, so its
     *       old-epoch commit is refused.
     * </ul>
     *
     * @param partitions the committed partitions (a topic that does not resolve to an id is given
     *     as a partition of a topic id no member owns)
     * @throws GroupException GROUP_ID_NOT_FOUND, UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH or FENCED_INSTANCE_ID
     */
    public synchronized Committer validateCommit(
            String groupId,
            String memberId,
            int memberEpoch,
            Optional<String> instanceId,
            Set<TopicIdPartition> partitions,
            long nowMs) {
        Group group = groups.get(groupId);
        boolean noMembers = group == null || group.members.isEmpty();
        if (memberEpoch < 0 && noMembers) {
            return Committer.ADMIN;
        }
        if (group == null) {
            throw unknownGroup(groupId, memberId, nowMs);
        }
        Member member = group.members.get(memberId);
        if (member == null) {
            throw new GroupException(
                    Errors.UNKNOWN_MEMBER_ID,
                    "member '" + memberId + "' is not in group " + groupId
                            + (memberEpoch < 0 ? " (commits without a member need an empty group)" : ""));
        }
        if (instanceId.isPresent() && !instanceId.get().equals(member.instanceId)) {
            throw new GroupException(
                    Errors.FENCED_INSTANCE_ID, "member " + memberId + " does not hold instance id " + instanceId.get());
        }
        if (memberEpoch == member.memberEpoch) {
            return Committer.MEMBER;
        }
        if (memberEpoch > member.memberEpoch) {
            throw new GroupException(
                    Errors.STALE_MEMBER_EPOCH,
                    "member " + memberId + " committed at epoch " + memberEpoch + ", newer than its epoch "
                            + member.memberEpoch);
        }
        for (TopicIdPartition partition : partitions) {
            Integer assignedAt = member.assignmentEpochs.get(partition);
            if (assignedAt == null || memberEpoch < assignedAt) {
                throw new GroupException(
                        Errors.STALE_MEMBER_EPOCH,
                        "member " + memberId + " committed at epoch " + memberEpoch + " but is at epoch "
                                + member.memberEpoch + ", and partition " + partition
                                + (assignedAt == null ? " is not its" : " is its since epoch " + assignedAt + " only"));
            }
        }
        return Committer.MEMBER;
    }

    /**
     * What a request of a member (epoch above 0) to a group unknown here gets: GROUP_ID_NOT_FOUND, as
     * Kafka; UNKNOWN_MEMBER_ID (join again) within a session timeout of this coordinator forgetting
     * its groups, when the member may be from before a failover.
     */
    private GroupException unknownGroup(String groupId, String memberId, long nowMs) {
        if (forgottenAtMs != Long.MIN_VALUE
                && nowMs - forgottenAtMs < config.sessionTimeout().toMillis()) {
            return new GroupException(
                    Errors.UNKNOWN_MEMBER_ID,
                    "member " + memberId + " is not in group " + groupId
                            + ": this coordinator just took the groups over, join again");
        }
        return new GroupException(Errors.GROUP_ID_NOT_FOUND, "group " + groupId + " does not exist");
    }

    /**
     * Whether an OffsetFetch may be answered: without a member id and with epoch -1 always (admin);
     * a member at its current epoch.
     *
     * @throws GroupException UNKNOWN_MEMBER_ID or STALE_MEMBER_EPOCH
     */
    public synchronized void validateFetch(String groupId, Optional<String> memberId, int memberEpoch) {
        if (memberId.filter(id -> !id.isEmpty()).isEmpty() && memberEpoch < 0) {
            return;
        }
        Group group = groups.get(groupId);
        Member member = group == null ? null : group.members.get(memberId.orElse(""));
        if (member == null) {
            throw new GroupException(
                    Errors.UNKNOWN_MEMBER_ID, "member '" + memberId.orElse("") + "' is not in group " + groupId);
        }
        if (memberEpoch != member.memberEpoch) {
            throw new GroupException(
                    Errors.STALE_MEMBER_EPOCH,
                    "member " + member.memberId + " fetched at epoch " + memberEpoch + " but is at epoch "
                            + member.memberEpoch);
        }
    }

    /** The names of the topics the group's members subscribe to now (OffsetDelete refuses those). */
    public synchronized Set<String> subscribedTopicNames(String groupId) {
        Group group = groups.get(groupId);
        if (group == null) {
            return Set.of();
        }
        Map<String, TopicView.TopicInfo> resolved = new TreeMap<>();
        Set<String> names = new TreeSet<>();
        for (Member member : group.members.values()) {
            subscribedTopics(member, resolved);
            names.addAll(member.subscribedTopicNames);
        }
        names.addAll(resolved.keySet());
        return Set.copyOf(names);
    }

    // ------------------------------------------------------------------------------------------
    // Describe, list, delete

    /** The group, if this coordinator holds it in memory. */
    public synchronized Optional<GroupDescription> describe(String groupId) {
        Group group = groups.get(groupId);
        if (group == null) {
            return Optional.empty();
        }
        List<GroupDescription.Member> members = new ArrayList<>();
        for (Member member : group.members.values()) {
            members.add(new GroupDescription.Member(
                    member.memberId,
                    Optional.ofNullable(member.instanceId),
                    Optional.ofNullable(member.rackId),
                    member.memberEpoch,
                    member.state,
                    member.clientId,
                    member.clientHost,
                    member.subscribedTopicNames,
                    Optional.ofNullable(member.subscribedTopicRegex),
                    member.assigned,
                    member.pendingRevocation,
                    group.target.getOrDefault(member.memberId, Collections.emptySortedSet())));
        }
        return Optional.of(new GroupDescription(
                group.groupId, group.state(), group.groupEpoch, group.assignmentEpoch, group.assignor, members));
    }

    /** Every group in memory, by id. */
    public synchronized SortedMap<String, GroupDescription> describeAll() {
        SortedMap<String, GroupDescription> all = new TreeMap<>();
        for (String groupId : groups.keySet()) {
            all.put(groupId, describe(groupId).orElseThrow());
        }
        return all;
    }

    /**
     * Checks that a group may be deleted (it has no members).
     *
     * @throws GroupException NON_EMPTY_GROUP
     */
    public synchronized void checkDeletable(String groupId) {
        Group group = groups.get(groupId);
        if (group != null && !group.members.isEmpty()) {
            throw new GroupException(
                    Errors.NON_EMPTY_GROUP, "group " + groupId + " has " + group.members.size() + " members");
        }
    }

    /** Forgets a group that has no members (after its offsets were deleted). */
    public synchronized void forgetIfEmpty(String groupId) {
        Group group = groups.get(groupId);
        if (group != null && group.members.isEmpty()) {
            groups.remove(groupId);
        }
    }

    /** Whether the group is held here and has members. */
    public synchronized boolean hasMembers(String groupId) {
        Group group = groups.get(groupId);
        return group != null && !group.members.isEmpty();
    }

    /** How many groups are held in memory. */
    public synchronized int groupCount() {
        return groups.size();
    }

    /** How many members all groups have together. */
    public synchronized int memberCount() {
        int members = 0;
        for (Group group : groups.values()) {
            members += group.members.size();
        }
        return members;
    }

    /** Whether the group is held in memory (it has or had members since this coordinator leads). */
    public synchronized boolean contains(String groupId) {
        return groups.containsKey(groupId);
    }

    /** The ids of the groups held in memory, in order (offsets retention visits them). */
    public synchronized SortedSet<String> groupIds() {
        return new TreeSet<>(groups.keySet());
    }

    /**
     * The length in UTF-8 bytes of a committed offset's metadata, checked against {@link
     * GroupConfig#maxMetadataBytes}.
     */
    public boolean metadataTooLarge(String metadata) {
        return metadata != null
                && (metadata.length() > config.maxMetadataBytes()
                        || metadata.getBytes(StandardCharsets.UTF_8).length > config.maxMetadataBytes());
    }

    /**
     * Checks the ownership index of every group against the members (simulation and tests): every
     * owned partition has exactly one owner, and the index says who.
     */
    public synchronized void checkInvariants() {
        for (Group group : groups.values()) {
            Map<TopicIdPartition, String> seen = new HashMap<>();
            for (Member member : group.members.values()) {
                for (TopicIdPartition partition : union(member.assigned, member.pendingRevocation)) {
                    String previous = seen.put(partition, member.memberId);
                    if (previous != null) {
                        throw new IllegalStateException("group %s: %s owned by %s and %s"
                                .formatted(group.groupId, partition, previous, member.memberId));
                    }
                }
            }
            if (!seen.equals(group.owners)) {
                throw new IllegalStateException("group %s: owner index %s differs from members %s"
                        .formatted(group.groupId, group.owners, seen));
            }
        }
    }

    private static Set<TopicIdPartition> union(Set<TopicIdPartition> a, Set<TopicIdPartition> b) {
        Set<TopicIdPartition> union = new HashSet<>(a);
        union.addAll(b);
        return union;
    }
}
