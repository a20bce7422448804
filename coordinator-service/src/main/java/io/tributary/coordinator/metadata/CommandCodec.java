package io.tributary.coordinator.metadata;

import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclPatternType;
import io.tributary.common.security.acl.AclPermission;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.coordinator.group.classic.ClassicGroupRecord;
import io.tributary.coordinator.metadata.MetadataCommand.AddPartitions;
import io.tributary.coordinator.metadata.MetadataCommand.AllocateProducerIds;
import io.tributary.coordinator.metadata.MetadataCommand.AlterClientQuotas;
import io.tributary.coordinator.metadata.MetadataCommand.AlterPartition;
import io.tributary.coordinator.metadata.MetadataCommand.AlterScramCredentials;
import io.tributary.coordinator.metadata.MetadataCommand.AlterTopicConfigs;
import io.tributary.coordinator.metadata.MetadataCommand.BootstrapScramCredentials;
import io.tributary.coordinator.metadata.MetadataCommand.CommitOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.CreateAcls;
import io.tributary.coordinator.metadata.MetadataCommand.CreateTopics;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteAcls;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteClassicGroup;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteConsumerGroup;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteGroupOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteTopic;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteTransaction;
import io.tributary.coordinator.metadata.MetadataCommand.ElectLeaders;
import io.tributary.coordinator.metadata.MetadataCommand.ElectionType;
import io.tributary.coordinator.metadata.MetadataCommand.FenceBroker;
import io.tributary.coordinator.metadata.MetadataCommand.NewTopic;
import io.tributary.coordinator.metadata.MetadataCommand.RegisterBroker;
import io.tributary.coordinator.metadata.MetadataCommand.ScramDeletion;
import io.tributary.coordinator.metadata.MetadataCommand.ScramUpsertion;
import io.tributary.coordinator.metadata.MetadataCommand.StoreClassicGroup;
import io.tributary.coordinator.metadata.MetadataCommand.StoreTransaction;
import io.tributary.coordinator.metadata.MetadataCommand.UnfenceBroker;
import io.tributary.coordinator.metadata.MetadataCommand.UpdateConsumerGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The binary encoding of a {@link MetadataCommand}: the bytes of one Raft log entry (Ratis's
 * {@code StateMachineLogEntry.logData}) and of a client's write request. Primitive types are those of
 * {@link Bytes} (big-endian; strings are an int32 length and UTF-8; bytes an int32 length and the
 * bytes).
 *
 * <pre>
 * offset 0  int8   format version: 1 for types 1..9, 2 for type 10, 3 for types 11..13,
 *                  4 for types 14..15, 5 for types 16..17 (below), 6 for an UpdateConsumerGroup
 *                  that carries a classic member's metadata (record kind 7), 7 for types 18..19,
 *                  8 for types 20..21, 9 for type 22, 10 for types 23..24
 * offset 1  int8   command type (below)
 * offset 2  ...    the command's fields, in this order:
 *
 * type 1  RegisterBroker    int32 brokerId, uuid incarnationId,
 *                           int32 endpoint count N, N x (string listener, string host, int32 port),
 *                           optional string rack, int64 timestampMs
 * type 2  FenceBroker       int32 brokerId, uuid incarnationId
 * type 3  UnfenceBroker     int32 brokerId, uuid incarnationId
 * type 4  CreateTopics      int32 topic count T, T x (string name, uuid topicId,
 *                             int32 partition count P, P x int list replicas, string map configs)
 * type 5  DeleteTopic       string name
 * type 6  AddPartitions     string topic, int32 currentPartitionCount,
 *                           int32 partition count P, P x int list replicas
 * type 7  AlterTopicConfigs string topic, string map set, string list remove
 * type 8  AlterPartition    string topic, int32 partition, int32 leaderId, int32 leaderEpoch,
 *                           int32 partitionEpoch, int list newIsr
 * type 9  ElectLeaders      int8 election type (0 preferred, 1 unclean),
 *                           int32 count N, N x (string topic, int32 partition)
 * type 10 AllocateProducerIds  int32 brokerId, int32 count          (version 2 and later)
 * type 11 CommitOffsets     string groupId, offsets                 (version 3 and later)
 * type 12 DeleteGroupOffsets  string groupId                        (version 3 and later)
 * type 13 DeleteOffsets     string groupId, int32 topic count T,    (version 3 and later)
 *                             T x (string topic, int list partitions)
 * type 14 StoreClassicGroup classic group                           (version 4 and later)
 * type 15 DeleteClassicGroup  string groupId                        (version 4 and later)
 * type 16 UpdateConsumerGroup string groupId, int32 record count N (1..), (version 5 and later;
 *                             record kind 7 from version 6)
 *                             N x consumer group record (ConsumerGroupCodec)
 * type 17 DeleteConsumerGroup string groupId                        (version 5 and later)
 * type 18 AlterScramCredentials  int32 deletion count D, D x (string user, int8 mechanism),
 *                             int32 upsertion count U, U x scram upsertion   (version 7 and later)
 * type 19 BootstrapScramCredentials  int32 upsertion count U, U x scram upsertion
 *                                                                   (version 7 and later)
 * type 20 CreateAcls        int32 ACL count A, A x acl              (version 8 and later)
 * type 21 DeleteAcls        int32 ACL count A, A x acl              (version 8 and later)
 * type 22 AlterClientQuotas int32 change count C, C x quota change  (version 9 and later;
 *                             the layout is in QuotaCodec)
 * type 23 StoreTransaction  transaction record                      (version 10 and later;
 *                             the layout is in TransactionCodec)
 * type 24 DeleteTransaction string transactionalId, int64 revision  (version 10 and later)
 *
 * offsets (also in ImageCodec): int32 topic count T, T x (string topic, int32 partition count P (1..),
 *                                 P x (int32 partition, int64 offset (0..), int32 leaderEpoch,
 *                                      string metadata, int64 commitTimestampMs))
 *          topics in name order, partitions in ascending order, no partition twice
 *
 * classic group (also in ImageCodec): string groupId, string protocolType, string protocolName,
 *          int32 generationId (0..), string leaderId, int64 stateTimestampMs,
 *          int32 member count M, M x (string memberId, optional string instanceId, string clientId,
 *            string clientHost, int32 rebalanceTimeoutMs, int32 sessionTimeoutMs,
 *            bytes subscription, bytes assignment)
 *          members in the record's order (member id order)
 *
 * scram upsertion: string user, int8 mechanism (1 SCRAM-SHA-256, 2 SCRAM-SHA-512), bytes salt,
 *          bytes storedKey, bytes serverKey, int32 iterations      (a credential, never a password)
 *
 * acl (also in ImageCodec): int8 resourceType, string resourceName, int8 patternType,
 *          string principal, string host, int8 operation, int8 permission
 *          (Kafka's wire codes: resource type 2 TOPIC, 3 GROUP, 4 CLUSTER, 5 TRANSACTIONAL_ID,
 *          6 DELEGATION_TOKEN, 7 USER; pattern type 3 LITERAL, 4 PREFIXED; operation 2 ALL ..
 *          15 TWO_PHASE_COMMIT; permission 2 DENY, 3 ALLOW; any other code is corrupt)
 * </pre>
 *
 * <p>Versions: version 2 adds type 10, version 3 adds types 11..13, version 4 types 14..15,
 * version 5 types 16..17, version 6 record kind 7 (a consumer group's classic member) inside
 * type 16, version 7 types 18..19, version 8 types 20..21, version 9 type 22, version 10 types 23..24; none changes anything else. Each command is written in the lowest version that has its type, so types
 * 1..9 keep their version-1 bytes and a coordinator that reads only version 1 can still follow a
 * log without producer id allocations, committed offsets, classic or consumer groups (a rolling upgrade); a
 * reader accepts each type in the version that added it and every later one.
 *
 * <p>Examples: {@code DeleteGroupOffsets("g")} is {@code 03 0C 00 00 00 01 67}; {@code
 * DeleteClassicGroup("g")} is {@code 04 0F 00 00 00 01 67}; {@code DeleteConsumerGroup("g")} is
 * {@code 05 11 00 00 00 01 67}; {@code AlterScramCredentials} deleting user {@code u}'s
 * SCRAM-SHA-256 credential is {@code 07 12 00 00 00 01 00 00 00 01 75 01 00 00 00 00}; a
 * StoreClassicGroup, an UpdateConsumerGroup and a BootstrapScramCredentials are in the module
 * README. {@code CreateAcls} of {@code User:u} allowed READ on the literal topic {@code t} from any
 * host is {@code 08 14 00 00 00 01 02 00 00 00 01 74 03 00 00 00 06 55 73 65 72 3A 75 00 00 00 01 2A
 * 03 03}.
 *
 * <p>Nothing may follow the last field. A reader rejects an unknown version or type, a negative or
 * impossible count, truncation and trailing bytes with a {@link CorruptCommandException}. A new field
 * or type needs a new format version; readers keep reading every older version, because the Raft log
 * and snapshots written by an older coordinator are replayed by a newer one.
 *
 * <p>Thread-safety: stateless.
 */
public final class CommandCodec {

    /** The newest format version this class writes (for the types it added; see the class doc). */
    public static final int VERSION = 10;

    /** The format version that added type 22. */
    static final int VERSION_9 = 9;

    /** The format version that added types 20..21. */
    static final int VERSION_8 = 8;

    /** The format version that added types 18..19. */
    static final int VERSION_7 = 7;

    /** The format version of an UpdateConsumerGroup with a classic member's metadata (record kind 7). */
    static final int VERSION_6 = 6;

    /** The format version that added types 16..17. */
    static final int VERSION_5 = 5;

    /** The format version of types 1..9. */
    static final int VERSION_1 = 1;

    /** The format version that added type 10. */
    static final int VERSION_2 = 2;

    /** The format version that added types 11..13. */
    static final int VERSION_3 = 3;

    /** The format version that added types 14..15. */
    static final int VERSION_4 = 4;

    private static final int REGISTER_BROKER = 1;
    private static final int FENCE_BROKER = 2;
    private static final int UNFENCE_BROKER = 3;
    private static final int CREATE_TOPICS = 4;
    private static final int DELETE_TOPIC = 5;
    private static final int ADD_PARTITIONS = 6;
    private static final int ALTER_TOPIC_CONFIGS = 7;
    private static final int ALTER_PARTITION = 8;
    private static final int ELECT_LEADERS = 9;
    private static final int ALLOCATE_PRODUCER_IDS = 10;
    private static final int COMMIT_OFFSETS = 11;
    private static final int DELETE_GROUP_OFFSETS = 12;
    private static final int DELETE_OFFSETS = 13;
    private static final int STORE_CLASSIC_GROUP = 14;
    private static final int DELETE_CLASSIC_GROUP = 15;
    private static final int UPDATE_CONSUMER_GROUP = 16;
    private static final int DELETE_CONSUMER_GROUP = 17;
    private static final int ALTER_SCRAM_CREDENTIALS = 18;
    private static final int BOOTSTRAP_SCRAM_CREDENTIALS = 19;
    private static final int CREATE_ACLS = 20;
    private static final int DELETE_ACLS = 21;
    private static final int ALTER_CLIENT_QUOTAS = 22;
    private static final int STORE_TRANSACTION = 23;
    private static final int DELETE_TRANSACTION = 24;

    /** The smallest encoded ACL: three codes, three empty strings, one more code. */
    static final int MIN_ACL_BYTES = 1 + 4 + 1 + 4 + 4 + 1 + 1;

    /** The smallest encoded SCRAM upsertion: empty user, mechanism, three empty byte strings, iterations. */
    private static final int MIN_UPSERTION_BYTES = 4 + 1 + 4 + 4 + 4 + 4;

    /** The smallest encoded committed offset: partition, offset, epoch, empty metadata, timestamp. */
    private static final int MIN_OFFSET_BYTES = 4 + 8 + 4 + 4 + 8;

    /** The smallest encoded classic group member: four empty strings, no instance id, two timeouts, no bytes. */
    private static final int MIN_MEMBER_BYTES = 4 + 1 + 4 + 4 + 4 + 4 + 4 + 4;

    /** The smallest encoded classic group: four empty strings, generation, timestamp, no member. */
    static final int MIN_CLASSIC_GROUP_BYTES = 4 + 4 + 4 + 4 + 4 + 8 + 4;

    private CommandCodec() {}

    /** Encodes a command. */
    public static byte[] encode(MetadataCommand command) {
        Bytes.Writer w = new Bytes.Writer().int8(versionOf(command));
        switch (command) {
            case RegisterBroker c -> {
                w.int8(REGISTER_BROKER).int32(c.brokerId()).uuid(c.incarnationId());
                w.int32(c.endpoints().size());
                c.endpoints()
                        .forEach(e -> w.string(e.listener()).string(e.host()).int32(e.port()));
                w.optionalString(c.rack()).int64(c.timestampMs());
            }
            case FenceBroker c -> w.int8(FENCE_BROKER).int32(c.brokerId()).uuid(c.incarnationId());
            case UnfenceBroker c -> w.int8(UNFENCE_BROKER).int32(c.brokerId()).uuid(c.incarnationId());
            case CreateTopics c -> {
                w.int8(CREATE_TOPICS).int32(c.topics().size());
                for (NewTopic t : c.topics()) {
                    w.string(t.name()).uuid(t.topicId());
                    writeAssignments(w, t.assignments());
                    w.stringMap(t.configs());
                }
            }
            case DeleteTopic c -> w.int8(DELETE_TOPIC).string(c.name());
            case AddPartitions c -> {
                w.int8(ADD_PARTITIONS).string(c.topic()).int32(c.currentPartitionCount());
                writeAssignments(w, c.assignments());
            }
            case AlterTopicConfigs c ->
                w.int8(ALTER_TOPIC_CONFIGS).string(c.topic()).stringMap(c.set()).stringList(c.remove());
            case AlterPartition c ->
                w.int8(ALTER_PARTITION)
                        .string(c.topic())
                        .int32(c.partition())
                        .int32(c.leaderId())
                        .int32(c.leaderEpoch())
                        .int32(c.partitionEpoch())
                        .intList(c.newIsr());
            case ElectLeaders c -> {
                w.int8(ELECT_LEADERS).int8(c.type() == ElectionType.PREFERRED ? 0 : 1);
                w.int32(c.partitions().size());
                c.partitions().forEach(tp -> w.string(tp.topic()).int32(tp.partition()));
            }
            case AllocateProducerIds c ->
                w.int8(ALLOCATE_PRODUCER_IDS).int32(c.brokerId()).int32(c.count());
            case CommitOffsets c -> {
                w.int8(COMMIT_OFFSETS).string(c.groupId());
                writeOffsets(w, c.offsets());
            }
            case DeleteGroupOffsets c -> w.int8(DELETE_GROUP_OFFSETS).string(c.groupId());
            case DeleteOffsets c -> {
                w.int8(DELETE_OFFSETS).string(c.groupId());
                SortedMap<String, List<Integer>> byTopic = new TreeMap<>();
                c.partitions()
                        .forEach(tp -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>())
                                .add(tp.partition()));
                w.int32(byTopic.size());
                byTopic.forEach((topic, partitions) -> w.string(topic).intList(partitions));
            }
            case StoreClassicGroup c -> {
                w.int8(STORE_CLASSIC_GROUP);
                writeClassicGroup(w, c.group());
            }
            case DeleteClassicGroup c -> w.int8(DELETE_CLASSIC_GROUP).string(c.groupId());
            case UpdateConsumerGroup c -> {
                w.int8(UPDATE_CONSUMER_GROUP).string(c.groupId());
                ConsumerGroupCodec.writeRecords(w, c.records());
            }
            case DeleteConsumerGroup c -> w.int8(DELETE_CONSUMER_GROUP).string(c.groupId());
            case AlterScramCredentials c -> {
                w.int8(ALTER_SCRAM_CREDENTIALS).int32(c.deletions().size());
                c.deletions().forEach(d -> w.string(d.user()).int8(d.mechanism()));
                writeUpsertions(w, c.upsertions());
            }
            case BootstrapScramCredentials c -> {
                w.int8(BOOTSTRAP_SCRAM_CREDENTIALS);
                writeUpsertions(w, c.upsertions());
            }
            case CreateAcls c -> {
                w.int8(CREATE_ACLS).int32(c.acls().size());
                c.acls().forEach(acl -> writeAcl(w, acl));
            }
            case DeleteAcls c -> {
                w.int8(DELETE_ACLS).int32(c.acls().size());
                c.acls().forEach(acl -> writeAcl(w, acl));
            }
            case AlterClientQuotas c -> {
                w.int8(ALTER_CLIENT_QUOTAS);
                QuotaCodec.writeChanges(w, c.changes());
            }
            case StoreTransaction c -> {
                w.int8(STORE_TRANSACTION);
                TransactionCodec.write(w, c.transaction());
            }
            case DeleteTransaction c ->
                w.int8(DELETE_TRANSACTION).string(c.transactionalId()).int64(c.revision());
        }
        return w.toByteArray();
    }

    /** The lowest format version that has the command's type. */
    private static int versionOf(MetadataCommand command) {
        return switch (command) {
            case AllocateProducerIds c -> VERSION_2;
            case CommitOffsets c -> VERSION_3;
            case DeleteGroupOffsets c -> VERSION_3;
            case DeleteOffsets c -> VERSION_3;
            case StoreClassicGroup c -> VERSION_4;
            case DeleteClassicGroup c -> VERSION_4;
            case UpdateConsumerGroup c -> ConsumerGroupCodec.hasClassicMembers(c.records()) ? VERSION_6 : VERSION_5;
            case DeleteConsumerGroup c -> VERSION_5;
            case AlterScramCredentials c -> VERSION_7;
            case BootstrapScramCredentials c -> VERSION_7;
            case CreateAcls c -> VERSION_8;
            case DeleteAcls c -> VERSION_8;
            case AlterClientQuotas c -> VERSION_9;
            case StoreTransaction c -> VERSION;
            case DeleteTransaction c -> VERSION;
            default -> VERSION_1;
        };
    }

    /** The version that added a command type. */
    private static int firstVersionOf(int type) {
        return switch (type) {
            case ALLOCATE_PRODUCER_IDS -> VERSION_2;
            case COMMIT_OFFSETS, DELETE_GROUP_OFFSETS, DELETE_OFFSETS -> VERSION_3;
            case STORE_CLASSIC_GROUP, DELETE_CLASSIC_GROUP -> VERSION_4;
            case UPDATE_CONSUMER_GROUP, DELETE_CONSUMER_GROUP -> VERSION_5;
            case ALTER_SCRAM_CREDENTIALS, BOOTSTRAP_SCRAM_CREDENTIALS -> VERSION_7;
            case CREATE_ACLS, DELETE_ACLS -> VERSION_8;
            case ALTER_CLIENT_QUOTAS -> VERSION_9;
            case STORE_TRANSACTION, DELETE_TRANSACTION -> VERSION;
            default -> VERSION_1; // an unknown type is rejected as such
        };
    }

    /** Writes committed offsets grouped by topic (the {@code offsets} layout in the class doc). */
    static void writeOffsets(Bytes.Writer w, SortedMap<TopicPartition, CommittedOffset> offsets) {
        SortedMap<String, List<Map.Entry<TopicPartition, CommittedOffset>>> byTopic = new TreeMap<>();
        offsets.entrySet()
                .forEach(e -> byTopic.computeIfAbsent(e.getKey().topic(), t -> new ArrayList<>())
                        .add(e));
        w.int32(byTopic.size());
        byTopic.forEach((topic, entries) -> {
            w.string(topic).int32(entries.size());
            for (var e : entries) {
                CommittedOffset o = e.getValue();
                w.int32(e.getKey().partition())
                        .int64(o.offset())
                        .int32(o.leaderEpoch())
                        .string(o.metadata())
                        .int64(o.commitTimestampMs());
            }
        });
    }

    /** Reads what {@link #writeOffsets} wrote; rejects an empty topic, a partition twice and a negative offset. */
    static SortedMap<TopicPartition, CommittedOffset> readOffsets(Bytes.Reader r) {
        SortedMap<TopicPartition, CommittedOffset> offsets = new TreeMap<>();
        int topics = r.count(4 + 4 + MIN_OFFSET_BYTES);
        for (int t = 0; t < topics; t++) {
            String topic = r.string();
            int partitions = r.count(MIN_OFFSET_BYTES);
            if (partitions == 0) {
                throw r.corrupt("topic '" + topic + "' without offsets at position " + r.position());
            }
            for (int p = 0; p < partitions; p++) {
                TopicPartition tp = new TopicPartition(topic, r.int32());
                long offset = r.int64();
                if (offset < 0) {
                    throw r.corrupt("negative offset " + offset + " of " + tp);
                }
                CommittedOffset o = new CommittedOffset(offset, r.int32(), r.string(), r.int64());
                if (offsets.put(tp, o) != null) {
                    throw r.corrupt("offset of " + tp + " twice");
                }
            }
        }
        return offsets;
    }

    /** Writes a classic group (the {@code classic group} layout in the class doc). */
    static void writeClassicGroup(Bytes.Writer w, ClassicGroupRecord group) {
        w.string(group.groupId())
                .string(group.protocolType())
                .string(group.protocolName())
                .int32(group.generationId())
                .string(group.leaderId())
                .int64(group.stateTimestampMs())
                .int32(group.members().size());
        for (ClassicGroupRecord.Member m : group.members()) {
            w.string(m.memberId())
                    .optionalString(m.instanceId())
                    .string(m.clientId())
                    .string(m.clientHost())
                    .int32(m.rebalanceTimeoutMs())
                    .int32(m.sessionTimeoutMs())
                    .bytes(m.subscription())
                    .bytes(m.assignment());
        }
    }

    /** Reads what {@link #writeClassicGroup} wrote; rejects a negative generation. */
    static ClassicGroupRecord readClassicGroup(Bytes.Reader r) {
        String groupId = r.string();
        String protocolType = r.string();
        String protocolName = r.string();
        int generationId = r.int32();
        if (generationId < 0) {
            throw r.corrupt("negative generation " + generationId + " of classic group '" + groupId + "'");
        }
        String leaderId = r.string();
        long stateTimestampMs = r.int64();
        int n = r.count(MIN_MEMBER_BYTES);
        List<ClassicGroupRecord.Member> members = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            members.add(new ClassicGroupRecord.Member(
                    r.string(),
                    r.optionalString(),
                    r.string(),
                    r.string(),
                    r.int32(),
                    r.int32(),
                    r.bytes(),
                    r.bytes()));
        }
        return new ClassicGroupRecord(
                groupId, protocolType, protocolName, generationId, leaderId, stateTimestampMs, members);
    }

    /** Writes SCRAM upsertions (the {@code scram upsertion} layout in the class doc), with their count. */
    private static void writeUpsertions(Bytes.Writer w, List<ScramUpsertion> upsertions) {
        w.int32(upsertions.size());
        for (ScramUpsertion u : upsertions) {
            w.string(u.user()).int8(u.mechanism());
            writeCredential(w, u.credential());
        }
    }

    /** Writes a stored SCRAM credential: bytes salt, bytes storedKey, bytes serverKey, int32 iterations. */
    static void writeCredential(Bytes.Writer w, ScramCredentialData c) {
        w.bytes(c.salt()).bytes(c.storedKey()).bytes(c.serverKey()).int32(c.iterations());
    }

    /** Reads what {@link #writeCredential} wrote. */
    static ScramCredentialData readCredential(Bytes.Reader r) {
        return new ScramCredentialData(r.bytes(), r.bytes(), r.bytes(), r.int32());
    }

    private static List<ScramUpsertion> readUpsertions(Bytes.Reader r) {
        int n = r.count(MIN_UPSERTION_BYTES);
        List<ScramUpsertion> upsertions = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            upsertions.add(new ScramUpsertion(r.string(), r.int8(), readCredential(r)));
        }
        return upsertions;
    }

    /** Writes an ACL (the {@code acl} layout in the class doc). */
    static void writeAcl(Bytes.Writer w, AclBinding acl) {
        w.int8(acl.resourceType().code())
                .string(acl.resourceName())
                .int8(acl.patternType().code())
                .string(acl.principal())
                .string(acl.host())
                .int8(acl.operation().code())
                .int8(acl.permission().code());
    }

    /** Reads what {@link #writeAcl} wrote; rejects a code Kafka does not define. */
    static AclBinding readAcl(Bytes.Reader r) {
        AclResourceType type = code(r, AclResourceType.fromCode((byte) r.int8()), AclResourceType.UNKNOWN, "resource");
        String name = r.string();
        AclPatternType pattern = code(r, AclPatternType.fromCode((byte) r.int8()), AclPatternType.UNKNOWN, "pattern");
        String principal = r.string();
        String host = r.string();
        AclOperation operation = code(r, AclOperation.fromCode((byte) r.int8()), AclOperation.UNKNOWN, "operation");
        AclPermission permission =
                code(r, AclPermission.fromCode((byte) r.int8()), AclPermission.UNKNOWN, "permission");
        return new AclBinding(type, name, pattern, principal, host, operation, permission);
    }

    private static <E> E code(Bytes.Reader r, E value, E unknown, String what) {
        if (value == unknown) {
            throw r.corrupt("unknown ACL " + what + " code before position " + r.position());
        }
        return value;
    }

    private static List<AclBinding> readAcls(Bytes.Reader r) {
        int n = r.count(MIN_ACL_BYTES);
        List<AclBinding> acls = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            acls.add(readAcl(r));
        }
        return acls;
    }

    private static void writeAssignments(Bytes.Writer w, List<List<Integer>> assignments) {
        w.int32(assignments.size());
        assignments.forEach(w::intList);
    }

    /**
     * Decodes a command.
     *
     * @throws CorruptCommandException if the bytes are not a command of a known version
     */
    public static MetadataCommand decode(byte[] bytes) {
        Bytes.Reader r = new Bytes.Reader(bytes, "metadata command");
        int version = r.int8();
        if (version < VERSION_1 || version > VERSION) {
            throw r.corrupt("unknown format version " + version);
        }
        int type = r.int8();
        if (version < firstVersionOf(type)) {
            throw r.corrupt(
                    "command type " + type + " needs format version " + firstVersionOf(type) + ", got " + version);
        }
        MetadataCommand command = switch (type) {
            case REGISTER_BROKER -> {
                int id = r.int32();
                var incarnation = r.uuid();
                int n = r.count(12);
                List<Endpoint> endpoints = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    endpoints.add(new Endpoint(r.string(), r.string(), r.int32()));
                }
                yield new RegisterBroker(id, incarnation, endpoints, r.optionalString(), r.int64());
            }
            case FENCE_BROKER -> new FenceBroker(r.int32(), r.uuid());
            case UNFENCE_BROKER -> new UnfenceBroker(r.int32(), r.uuid());
            case CREATE_TOPICS -> {
                int n = r.count(28);
                List<NewTopic> topics = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    topics.add(new NewTopic(r.string(), r.uuid(), readAssignments(r), r.stringMap()));
                }
                yield new CreateTopics(topics);
            }
            case DELETE_TOPIC -> new DeleteTopic(r.string());
            case ADD_PARTITIONS -> new AddPartitions(r.string(), r.int32(), readAssignments(r));
            case ALTER_TOPIC_CONFIGS -> new AlterTopicConfigs(r.string(), r.stringMap(), r.stringList());
            case ALTER_PARTITION ->
                new AlterPartition(r.string(), r.int32(), r.int32(), r.int32(), r.int32(), r.intList());
            case ELECT_LEADERS -> {
                int t = r.int8();
                ElectionType electionType = switch (t) {
                    case 0 -> ElectionType.PREFERRED;
                    case 1 -> ElectionType.UNCLEAN;
                    default -> throw r.corrupt("unknown election type " + t);
                };
                int n = r.count(8);
                List<TopicPartition> partitions = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    partitions.add(new TopicPartition(r.string(), r.int32()));
                }
                yield new ElectLeaders(electionType, partitions);
            }
            case ALLOCATE_PRODUCER_IDS -> new AllocateProducerIds(r.int32(), r.int32());
            case COMMIT_OFFSETS -> new CommitOffsets(r.string(), readOffsets(r));
            case DELETE_GROUP_OFFSETS -> new DeleteGroupOffsets(r.string());
            case DELETE_OFFSETS -> {
                String groupId = r.string();
                int n = r.count(8);
                List<TopicPartition> partitions = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    String topic = r.string();
                    r.intList().forEach(p -> partitions.add(new TopicPartition(topic, p)));
                }
                yield new DeleteOffsets(groupId, partitions);
            }
            case STORE_CLASSIC_GROUP -> new StoreClassicGroup(readClassicGroup(r));
            case DELETE_CLASSIC_GROUP -> new DeleteClassicGroup(r.string());
            case UPDATE_CONSUMER_GROUP ->
                new UpdateConsumerGroup(r.string(), ConsumerGroupCodec.readRecords(r, version));
            case DELETE_CONSUMER_GROUP -> new DeleteConsumerGroup(r.string());
            case ALTER_SCRAM_CREDENTIALS -> {
                int n = r.count(4 + 1);
                List<ScramDeletion> deletions = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    deletions.add(new ScramDeletion(r.string(), r.int8()));
                }
                yield new AlterScramCredentials(deletions, readUpsertions(r));
            }
            case BOOTSTRAP_SCRAM_CREDENTIALS -> new BootstrapScramCredentials(readUpsertions(r));
            case CREATE_ACLS -> new CreateAcls(readAcls(r));
            case DELETE_ACLS -> new DeleteAcls(readAcls(r));
            case ALTER_CLIENT_QUOTAS -> new AlterClientQuotas(QuotaCodec.readChanges(r));
            case STORE_TRANSACTION -> new StoreTransaction(TransactionCodec.read(r));
            case DELETE_TRANSACTION -> {
                String id = r.string();
                long revision = r.int64();
                if (id.isEmpty() || revision < 0) {
                    throw r.corrupt("a deletion of transactional id '" + id + "' at revision " + revision);
                }
                yield new DeleteTransaction(id, revision);
            }
            default -> throw r.corrupt("unknown command type " + type);
        };
        r.expectEnd();
        return command;
    }

    private static List<List<Integer>> readAssignments(Bytes.Reader r) {
        int n = r.count(4);
        List<List<Integer>> assignments = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            assignments.add(r.intList());
        }
        return assignments;
    }
}
