package io.tributary.coordinator.group.classic;

import io.tributary.coordinator.group.ClassicJoin;
import io.tributary.coordinator.group.ClassicProtocol;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.Store;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.StoreTask;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JoinGroup side of {@link ClassicGroupCoordinator}: a join's validation; a new member (with
 * KIP-394's MEMBER_ID_REQUIRED round trip: its id is pending until it joins again with it) or an
 * existing one joining again; a static member (KIP-345) back without its member id, taking its
 * place under a new id and fencing the old one; and the JoinGroup answers that do not wait (errors,
 * the current generation again). A join that changes the group starts a rebalance through {@link
 * ClassicRebalance}, whose join barrier answers the waiting joins.
 *
 * <p>Used only by {@link ClassicGroupCoordinator}, under its lock; not thread-safe by itself.
 */
final class ClassicJoins {

    /** The coordinator's logger: log settings that name the coordinator keep applying. */
    private static final Logger log = LoggerFactory.getLogger(ClassicGroupCoordinator.class);

    private final ClassicGroupConfig config;
    private final Supplier<UUID> ids;
    private final ClassicRebalance rebalance;
    private final Consumer<StoreTask> stores;

    /**
     * @param ids where new member ids' random part comes from
     * @param stores where writes go (the coordinator's queue of store tasks)
     */
    ClassicJoins(
            ClassicGroupConfig config, Supplier<UUID> ids, ClassicRebalance rebalance, Consumer<StoreTask> stores) {
        this.config = Objects.requireNonNull(config, "config");
        this.ids = Objects.requireNonNull(ids, "ids");
        this.rebalance = Objects.requireNonNull(rebalance, "rebalance");
        this.stores = Objects.requireNonNull(stores, "stores");
    }

    /**
     * Refuses a JoinGroup whose group id, session timeout, protocols or ids are out of bounds.
     *
     * @throws GroupException INVALID_GROUP_ID, INVALID_SESSION_TIMEOUT or INVALID_REQUEST
     */
    void validate(ClassicJoin join) {
        if (join.groupId().isEmpty()) {
            throw new GroupException(Errors.INVALID_GROUP_ID, "the group id is empty");
        }
        if (join.sessionTimeoutMs() < config.minSessionTimeout().toMillis()
                || join.sessionTimeoutMs() > config.maxSessionTimeout().toMillis()) {
            throw new GroupException(
                    Errors.INVALID_SESSION_TIMEOUT,
                    "session timeout " + join.sessionTimeoutMs() + " ms is outside ["
                            + config.minSessionTimeout().toMillis() + ", "
                            + config.maxSessionTimeout().toMillis() + "] ms");
        }
        int bytes = 0;
        for (ClassicProtocol protocol : join.protocols()) {
            bytes += protocol.name().length() + protocol.size();
            checkLength("protocol name", protocol.name());
        }
        if (bytes > config.maxProtocolBytes()) {
            throw new GroupException(
                    Errors.INVALID_REQUEST,
                    "the protocols take " + bytes + " bytes, more than " + config.maxProtocolBytes());
        }
        checkLength("group id", join.groupId());
        checkLength("member id", join.memberId());
        checkLength("protocol type", join.protocolType());
        join.instanceId().ifPresent(id -> checkLength("group instance id", id));
    }

    private void checkLength(String what, String value) {
        if (value.length() > config.maxIdLength()) {
            throw new GroupException(
                    Errors.INVALID_REQUEST,
                    "the " + what + " is " + value.length() + " characters, more than " + config.maxIdLength());
        }
    }

    /**
     * A validated JoinGroup into {@code group} (new when the member id is empty): see {@link
     * ClassicGroupCoordinator#join}.
     */
    CompletableFuture<ClassicJoinResult> join(ClassicGroup group, ClassicJoin join, long nowMs) {
        return join.memberId().isEmpty() ? joinNew(group, join, nowMs) : joinExisting(group, join, nowMs);
    }

    private CompletableFuture<ClassicJoinResult> joinNew(ClassicGroup group, ClassicJoin join, long nowMs) {
        if (!group.supportsProtocols(join.protocolType(), join.protocols())) {
            throw inconsistentProtocol(group, join);
        }
        if (join.instanceId().isPresent()
                && group.staticMembers.containsKey(join.instanceId().get())) {
            return rejoinStatic(group, join, nowMs);
        }
        if (group.members.size() + group.pendingMembers.size() >= config.maxGroupSize()) {
            throw new GroupException(
                    Errors.GROUP_MAX_SIZE_REACHED,
                    "group " + group.groupId + " has reached its most members, " + config.maxGroupSize());
        }
        String memberId = join.instanceId().orElse(join.clientId()) + "-" + ids.get();
        if (join.instanceId().isEmpty() && join.requireKnownMemberId()) {
            group.pendingMembers.put(memberId, nowMs + join.sessionTimeoutMs());
            return CompletableFuture.completedFuture(ClassicJoinResult.failed(Errors.MEMBER_ID_REQUIRED, memberId));
        }
        return addMember(group, join, memberId, nowMs);
    }

    private CompletableFuture<ClassicJoinResult> joinExisting(ClassicGroup group, ClassicJoin join, long nowMs) {
        // Kafka checks the protocols before the member id in an existing group.
        if (!group.supportsProtocols(join.protocolType(), join.protocols())) {
            throw inconsistentProtocol(group, join);
        }
        if (join.instanceId().isEmpty() && group.pendingMembers.containsKey(join.memberId())) {
            group.pendingMembers.remove(join.memberId());
            return addMember(group, join, join.memberId(), nowMs);
        }
        ClassicMember member = group.member(join.memberId(), join.instanceId());
        member.sessionDeadlineMs = nowMs + join.sessionTimeoutMs();
        switch (group.state) {
            case PREPARING_REBALANCE -> {
                return awaitJoin(group, member, join, nowMs);
            }
            case COMPLETING_REBALANCE -> {
                if (member.matches(join.protocols())) {
                    // It missed its JoinGroup answer: the current generation again.
                    return CompletableFuture.completedFuture(
                            group.joinAnswer(member, false, group.isLeader(member.memberId)));
                }
                return rebalanceFor(group, member, join, "member " + member.memberId + " changed protocols", nowMs);
            }
            case STABLE -> {
                if (group.isLeader(member.memberId) || !member.matches(join.protocols())) {
                    return rebalanceFor(
                            group,
                            member,
                            join,
                            group.isLeader(member.memberId)
                                    ? "the leader joined again"
                                    : "member " + member.memberId + " changed protocols",
                            nowMs);
                }
                return CompletableFuture.completedFuture(group.joinAnswer(member, false, false));
            }
            case EMPTY -> throw new IllegalStateException("group " + group.groupId + " is empty but has a member");
            default -> throw new IllegalStateException("unknown state " + group.state);
        }
    }

    private CompletableFuture<ClassicJoinResult> rebalanceFor(
            ClassicGroup group, ClassicMember member, ClassicJoin join, String reason, long nowMs) {
        CompletableFuture<ClassicJoinResult> answer = awaitJoinWithoutCompleting(member, join);
        rebalance.prepare(group, reason, nowMs);
        rebalance.maybeCompleteJoin(group, nowMs);
        return answer;
    }

    private CompletableFuture<ClassicJoinResult> awaitJoin(
            ClassicGroup group, ClassicMember member, ClassicJoin join, long nowMs) {
        CompletableFuture<ClassicJoinResult> answer = awaitJoinWithoutCompleting(member, join);
        rebalance.maybeCompleteJoin(group, nowMs);
        return answer;
    }

    private static CompletableFuture<ClassicJoinResult> awaitJoinWithoutCompleting(
            ClassicMember member, ClassicJoin join) {
        member.update(join);
        if (member.awaitingJoin != null) {
            // A second JoinGroup while one waits: the client gave up on the first.
            member.awaitingJoin.complete(ClassicJoinResult.failed(Errors.REBALANCE_IN_PROGRESS, member.memberId));
        }
        member.awaitingJoin = new CompletableFuture<>();
        return member.awaitingJoin;
    }

    private CompletableFuture<ClassicJoinResult> addMember(
            ClassicGroup group, ClassicJoin join, String memberId, long nowMs) {
        ClassicMember member = new ClassicMember(memberId, join.instanceId());
        member.update(join);
        member.sessionDeadlineMs = nowMs + join.sessionTimeoutMs();
        member.awaitingJoin = new CompletableFuture<>();
        CompletableFuture<ClassicJoinResult> answer = member.awaitingJoin;
        group.add(member, join.protocolType());
        if (group.state == ClassicGroupState.PREPARING_REBALANCE && group.initialDelay) {
            group.newMemberAdded = true;
        }
        rebalance.prepare(group, "member " + memberId + " joined", nowMs);
        rebalance.maybeCompleteJoin(group, nowMs);
        return answer;
    }

    /** A static member joined again without its member id: it takes its place under a new id. */
    private CompletableFuture<ClassicJoinResult> rejoinStatic(ClassicGroup group, ClassicJoin join, long nowMs) {
        ClassicMember previous =
                group.members.get(group.staticMembers.get(join.instanceId().orElseThrow()));
        ClassicMember member = previous.replacedBy(join.instanceId().get() + "-" + ids.get());
        String previousLeaderId = group.leaderId;
        fence(previous);
        group.replace(previous, member);
        member.update(join);
        // As Kafka: the member keeps the client id and host it first joined with; its protocols and
        // timeouts are the new join's.
        member.clientId = previous.clientId;
        member.clientHost = previous.clientHost;
        member.sessionDeadlineMs = nowMs + join.sessionTimeoutMs();
        log.info(
                "group {}: static member {} joined again as {} (was {})",
                group.groupId,
                join.instanceId().get(),
                member.memberId,
                previous.memberId);
        switch (group.state) {
            case STABLE -> {
                if (!group.selectProtocol().equals(group.protocolName.orElseThrow())) {
                    member.awaitingJoin = new CompletableFuture<>();
                    CompletableFuture<ClassicJoinResult> answer = member.awaitingJoin;
                    rebalance.prepare(group, "static member " + member.memberId + " changed protocols", nowMs);
                    rebalance.maybeCompleteJoin(group, nowMs);
                    return answer;
                }
                // Nothing changed for the group: no rebalance; the new member id is stored.
                stores.accept(new Store(group.record(), false));
                boolean skip = group.isLeader(member.memberId) && member.supportsSkipAssignment;
                ClassicJoinResult answer = group.joinAnswer(member, skip, skip);
                // Before SkipAssignment (v9), Kafka names the leader as it was before this join: a
                // returning static leader is told its previous member id leads, and assigns nothing.
                return CompletableFuture.completedFuture(skip ? answer : answer.withLeader(previousLeaderId));
            }
            case COMPLETING_REBALANCE -> {
                member.awaitingJoin = new CompletableFuture<>();
                CompletableFuture<ClassicJoinResult> answer = member.awaitingJoin;
                rebalance.prepare(group, "static member " + member.memberId + " joined during a rebalance", nowMs);
                rebalance.maybeCompleteJoin(group, nowMs);
                return answer;
            }
            case PREPARING_REBALANCE -> {
                member.awaitingJoin = new CompletableFuture<>();
                CompletableFuture<ClassicJoinResult> answer = member.awaitingJoin;
                rebalance.maybeCompleteJoin(group, nowMs);
                return answer;
            }
            default -> throw new IllegalStateException("group " + group.groupId + " is empty but has a member");
        }
    }

    /** A member replaced by its static successor: whatever it waits for fails FENCED_INSTANCE_ID. */
    private static void fence(ClassicMember member) {
        member.failWaiting(Errors.FENCED_INSTANCE_ID);
    }

    private static GroupException inconsistentProtocol(ClassicGroup group, ClassicJoin join) {
        return new GroupException(
                Errors.INCONSISTENT_GROUP_PROTOCOL,
                "group " + group.groupId + " runs protocol type '" + group.protocolType.orElse("")
                        + "' with protocols " + group.candidates() + "; member asked for type '"
                        + join.protocolType() + "' with " + join.protocols());
    }
}
