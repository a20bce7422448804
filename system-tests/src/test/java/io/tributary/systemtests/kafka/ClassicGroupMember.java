package io.tributary.systemtests.kafka;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;
import org.awaitility.Awaitility;

/**
 * One raw member of a classic consumer group (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) on its
 * own connection to the group's coordinator. A JoinGroup or SyncGroup may wait in the coordinator
 * for the other members, and a broker answers one request of a connection at a time, so each member
 * has its own connection and a waiting request is sent now and its answer read later ({@link
 * #sendJoin}, {@link #receiveJoin}).
 *
 * <p>The member's settings (protocols, timeouts, instance id) are fields the scenario sets before a
 * join; its member id and generation are what the coordinator last gave it. Every answer is written
 * down through {@link Names}, so that two clusters' answers compare equal when they mean the same.
 */
final class ClassicGroupMember implements AutoCloseable {

    /** The protocol type a Java consumer announces. */
    static final String CONSUMER = ConsumerProtocol.PROTOCOL_TYPE;

    /** The client id in every raw request's header: the prefix of a dynamic member id. */
    static final String CLIENT_ID = io.tributary.common.testing.KafkaTestConnection.CLIENT_ID;

    final String name;
    final String group;
    private final RawKafka raw;
    private final Names names;

    String memberId = "";
    int generation = -1;
    String instanceId;
    String protocolType = CONSUMER;
    List<String> protocols = List.of("range");
    int sessionTimeoutMs = 60_000;
    int rebalanceTimeoutMs = 60_000;
    /** The subscription every protocol of this member carries, named {@code sub-<name>}. */
    byte[] metadata;

    private ClassicGroupMember(String name, String group, RawKafka raw, Names names) {
        this.name = name;
        this.group = group;
        this.raw = raw;
        this.names = names;
        subscribe("sub-" + name);
    }

    /** Makes this member's protocol metadata a subscription to one topic, named {@code label}. */
    void subscribe(String label) {
        metadata = bytes(ConsumerProtocol.serializeSubscription(
                new ConsumerPartitionAssignor.Subscription(List.of("topic-of-" + label))));
        names.nameBytes(label, metadata);
    }

    /** A member of {@code group} connected to the group's coordinator on {@code target}. */
    static ClassicGroupMember open(KafkaTarget target, String group, String name, Names names) throws Exception {
        return new ClassicGroupMember(name, group, RawKafka.open(coordinatorPort(target, group)), names);
    }

    /**
     * The group's coordinator port, once FindCoordinator names one: right after a cluster starts,
     * the offsets topic may not be ready yet (COORDINATOR_NOT_AVAILABLE).
     */
    static int coordinatorPort(KafkaTarget target, String group) {
        return Awaitility.await("the coordinator of " + group)
                .atMost(Clients.PATIENCE)
                .pollInterval(Duration.ofMillis(200))
                .until(
                        () -> {
                            try {
                                return GroupBadRequestsIT.coordinatorPort(target, group);
                            } catch (AssertionError e) {
                                if (String.valueOf(e.getMessage()).contains("COORDINATOR_NOT_AVAILABLE")) {
                                    return -1;
                                }
                                throw e;
                            }
                        },
                        port -> port > 0);
    }

    RawKafka raw() {
        return raw;
    }

    Names names() {
        return names;
    }

    /** An assignment for this member, named {@code <label>}: a consumer assignment of no partitions with user data. */
    byte[] assignment(String label) {
        byte[] bytes = bytes(ConsumerProtocol.serializeAssignment(new ConsumerPartitionAssignor.Assignment(
                List.of(), ByteBuffer.wrap(label.getBytes(StandardCharsets.UTF_8)))));
        names.nameBytes(label, bytes);
        return bytes;
    }

    /** An assignment of no partitions and no user data (what a built-in assignor gives a member with nothing), named {@code label}. */
    byte[] plainAssignment(String label) {
        byte[] bytes = bytes(ConsumerProtocol.serializeAssignment(new ConsumerPartitionAssignor.Assignment(List.of())));
        names.nameBytes(label, bytes);
        return bytes;
    }

    /** The JoinGroup this member would send now, from its fields. */
    JoinGroupRequestData joinRequest() {
        var collection = new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
        for (String protocol : protocols) {
            collection.add(new JoinGroupRequestData.JoinGroupRequestProtocol()
                    .setName(protocol)
                    .setMetadata(metadata));
        }
        return new JoinGroupRequestData()
                .setGroupId(group)
                .setMemberId(memberId)
                .setGroupInstanceId(instanceId)
                .setSessionTimeoutMs(sessionTimeoutMs)
                .setRebalanceTimeoutMs(rebalanceTimeoutMs)
                .setProtocolType(protocolType)
                .setProtocols(collection);
    }

    RequestHeader sendJoin(short version, JoinGroupRequestData data) throws IOException {
        return raw.connection().send(new JoinGroupRequest.Builder(data).build(version));
    }

    /** Reads a JoinGroup answer; takes its member id (if any) and, on success, its generation. */
    JoinGroupResponseData receiveJoin(RequestHeader header) throws IOException {
        JoinGroupResponseData response =
                raw.connection().receive(header, JoinGroupResponse.class).data();
        boolean given =
                response.errorCode() == Errors.NONE.code() || response.errorCode() == Errors.MEMBER_ID_REQUIRED.code();
        if (given && response.memberId() != null && !response.memberId().isEmpty()) {
            memberId = response.memberId();
            names.register(memberId);
        }
        if (response.errorCode() == Errors.NONE.code()) {
            generation = response.generationId();
        }
        return response;
    }

    JoinGroupResponseData join(short version, JoinGroupRequestData data) throws IOException {
        return receiveJoin(sendJoin(version, data));
    }

    JoinGroupResponseData join(short version) throws IOException {
        return join(version, joinRequest());
    }

    /**
     * Joins as a real consumer does: once, and again with the member id a MEMBER_ID_REQUIRED
     * answer gives. Returns the last answer.
     */
    JoinGroupResponseData joinFully(short version) throws IOException {
        JoinGroupResponseData response = join(version);
        if (response.errorCode() == Errors.MEMBER_ID_REQUIRED.code()) {
            response = join(version);
        }
        return response;
    }

    /** Sends the first half of {@link #joinFully}: returns the header of the join that may wait. */
    RequestHeader startJoin(short version) throws IOException {
        JoinGroupResponseData response = join(version);
        if (response.errorCode() != Errors.MEMBER_ID_REQUIRED.code()) {
            throw new AssertionError(name + ": MEMBER_ID_REQUIRED expected, got " + describeJoin(response));
        }
        return sendJoin(version, joinRequest());
    }

    SyncGroupRequestData syncRequest(Map<ClassicGroupMember, byte[]> assignments, String protocolName) {
        List<SyncGroupRequestData.SyncGroupRequestAssignment> list = new ArrayList<>();
        assignments.forEach((member, bytes) -> list.add(new SyncGroupRequestData.SyncGroupRequestAssignment()
                .setMemberId(member.memberId)
                .setAssignment(bytes)));
        return new SyncGroupRequestData()
                .setGroupId(group)
                .setGenerationId(generation)
                .setMemberId(memberId)
                .setGroupInstanceId(instanceId)
                .setProtocolType(protocolType)
                .setProtocolName(protocolName)
                .setAssignments(list);
    }

    /** A SyncGroup at the newest version naming protocol "range", handing this member the assignment {@code label}: its answer as a line. */
    String syncAssigning(String label) throws IOException {
        return describeSync(sync(ClassicGroupProtocolIT.SYNC, syncRequest(Map.of(this, assignment(label)), "range")));
    }

    /** {@link #syncAssigning(String)}, handing {@code other} the assignment {@code otherLabel} too. */
    String syncAssigning(String label, ClassicGroupMember other, String otherLabel) throws IOException {
        Map<ClassicGroupMember, byte[]> assignments = new LinkedHashMap<>();
        assignments.put(this, assignment(label));
        assignments.put(other, other.assignment(otherLabel));
        return describeSync(sync(ClassicGroupProtocolIT.SYNC, syncRequest(assignments, "range")));
    }

    /** A SyncGroup at the newest version naming protocol "range" with no assignments (a follower's, or a leader's handing out nothing). */
    String syncNothing() throws IOException {
        return describeSync(sync(ClassicGroupProtocolIT.SYNC, syncRequest(Map.of(), "range")));
    }

    RequestHeader sendSync(short version, SyncGroupRequestData data) throws IOException {
        return raw.connection().send(new SyncGroupRequest.Builder(data).build(version));
    }

    SyncGroupResponseData receiveSync(RequestHeader header) throws IOException {
        return raw.connection().receive(header, SyncGroupResponse.class).data();
    }

    SyncGroupResponseData sync(short version, SyncGroupRequestData data) throws IOException {
        return receiveSync(sendSync(version, data));
    }

    Errors heartbeat(short version) throws IOException {
        return heartbeat(version, memberId, generation, instanceId);
    }

    Errors heartbeat(short version, String member, int generationId, String instance) throws IOException {
        var data = new HeartbeatRequestData()
                .setGroupId(group)
                .setMemberId(member)
                .setGenerationId(generationId)
                .setGroupInstanceId(instance);
        return Errors.forCode(raw.connection()
                .roundTrip(new HeartbeatRequest.Builder(data).build(version), HeartbeatResponse.class)
                .data()
                .errorCode());
    }

    /** A LeaveGroup of {@code members} (one before v3), as "top error [member: error, ...]". */
    String leave(short version, List<LeaveGroupRequestData.MemberIdentity> members) throws IOException {
        var response = raw.connection()
                .roundTrip(new LeaveGroupRequest.Builder(group, members).build(version), LeaveGroupResponse.class)
                .data();
        List<String> each = new ArrayList<>();
        for (var member : response.members()) {
            each.add(names.member(member.memberId()) + "/" + member.groupInstanceId() + " "
                    + Errors.forCode(member.errorCode()));
        }
        return Errors.forCode(response.errorCode()) + " " + each;
    }

    /** This member as a LeaveGroup names it (member id, instance id). */
    LeaveGroupRequestData.MemberIdentity identity() {
        return new LeaveGroupRequestData.MemberIdentity().setMemberId(memberId).setGroupInstanceId(instanceId);
    }

    /** A JoinGroup answer as one line of text, with names for member ids, generations and bytes. */
    String describeJoin(JoinGroupResponseData r) {
        List<String> members = new ArrayList<>();
        for (var m : r.members()) {
            members.add(names.member(m.memberId()) + (m.groupInstanceId() == null ? "" : "/" + m.groupInstanceId())
                    + "=" + names.bytes(m.metadata()));
        }
        members.sort(null);
        return Errors.forCode(r.errorCode()) + " gen=" + names.generation(r.generationId()) + " member="
                + names.member(r.memberId()) + " leader=" + names.member(r.leader()) + " protocol="
                + r.protocolType() + "/" + r.protocolName() + " skipAssignment=" + r.skipAssignment()
                + " members=" + members;
    }

    /** A SyncGroup answer as one line of text. */
    String describeSync(SyncGroupResponseData r) {
        return Errors.forCode(r.errorCode()) + " protocol=" + r.protocolType() + "/" + r.protocolName() + " assignment="
                + names.bytes(r.assignment());
    }

    @Override
    public void close() throws IOException {
        raw.close();
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    /**
     * What makes two clusters' answers comparable: member ids by the order the scenario's members
     * were given them, or else first saw them ({@code m1}, {@code m2}, ...; the first line that
     * names one says the id's form), generations relative to
     * the first one seen ({@code G}, {@code G+1}; -1 stays -1), bytes by the name the scenario gave
     * them ({@code empty} when there are none, hex otherwise).
     */
    static final class Names {
        private static final Pattern UUID =
                Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
        private final Map<String, String> members = new LinkedHashMap<>();
        private final Set<String> written = new HashSet<>();
        private final Map<String, String> byteNames = new LinkedHashMap<>();
        private Integer firstGeneration;

        synchronized void nameBytes(String label, byte[] bytes) {
            byteNames.put(HexFormat.of().formatHex(bytes), label);
        }

        synchronized String bytes(byte[] bytes) {
            if (bytes == null) {
                return "null";
            }
            if (bytes.length == 0) {
                return "empty";
            }
            String hex = HexFormat.of().formatHex(bytes);
            return byteNames.getOrDefault(hex, "hex:" + hex);
        }

        /**
         * Gives a member id the next name, if it has none: ids are named in the order the
         * scenario's members were given them, not the order an answer happens to list them in.
         */
        synchronized void register(String id) {
            members.computeIfAbsent(id, k -> "m" + (members.size() + 1));
        }

        /** A member id's name; the first time it is written down, with its form (client id or instance id, then a UUID). */
        synchronized String member(String id) {
            if (id == null) {
                return "null";
            }
            if (id.isEmpty()) {
                return "''";
            }
            register(id);
            String label = members.get(id);
            return written.add(id) ? label + "<" + form(id) + ">" : label;
        }

        /** Names an id the scenario made up, so that an answer naming it shows that name. */
        synchronized void nameMember(String id, String label) {
            members.put(id, label);
            written.add(id);
        }

        private static String form(String id) {
            if (UUID.matcher(id).matches()) {
                return "uuid";
            }
            int dash = id.length() - 37;
            if (dash > 0
                    && id.charAt(dash) == '-'
                    && UUID.matcher(id.substring(dash + 1)).matches()) {
                String prefix = id.substring(0, dash);
                return (prefix.equals(CLIENT_ID) ? "clientId" : "'" + prefix + "'") + "-uuid";
            }
            return "other:" + id.length() + " chars";
        }

        synchronized String generation(int generation) {
            if (generation < 0) {
                return Integer.toString(generation);
            }
            if (firstGeneration == null) {
                firstGeneration = generation;
                System.out.println("[classic] first generation seen: " + generation);
            }
            int delta = generation - firstGeneration;
            return delta == 0 ? "G" : delta > 0 ? "G+" + delta : "G" + delta;
        }
    }
}
