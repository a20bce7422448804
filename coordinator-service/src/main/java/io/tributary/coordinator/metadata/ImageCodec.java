package io.tributary.coordinator.metadata;

import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.coordinator.group.StoredConsumerGroup;
import io.tributary.coordinator.group.classic.ClassicGroupRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * The canonical binary form of a {@link MetadataImage}: the content of a snapshot file, and the bytes
 * that tests compare to say two voters hold the same state. Canonical: brokers in id order, topics in
 * name order, configs in key order, so equal images have equal bytes. Primitive types are those of
 * {@link Bytes} (big-endian).
 *
 * <pre>
 * offset 0  int32  magic 0x5452424D ("TRBM")
 * offset 4  int8   format version, 10 (1 to 9 are read too)
 * offset 5  int64  metadata version
 * offset 13 int64  next producer id (version 2 only; a version-1 image has none, and reads as 0)
 *           int32  broker count B, then B brokers in id order:
 *                    int32 id, uuid incarnationId, int64 registeredAtMs, int8 fenced (0|1),
 *                    optional string rack, int32 endpoint count N,
 *                    N x (string listener, string host, int32 port)
 *           int32  topic count T, then T topics in name order:
 *                    string name, uuid id, string map configs, int32 partition count P,
 *                    P x (int list replicas, int32 leader (-1: none), int32 leaderEpoch,
 *                         int list isr, int32 partitionEpoch)
 *           int32  group count G (version 3 and later), then G groups in id order:
 *                    string groupId, offsets (CommandCodec's layout: int32 topic count T,
 *                    T x (string topic, int32 partition count P (1..), P x (int32 partition,
 *                    int64 offset, int32 leaderEpoch, string metadata, int64 commitTimestampMs)),
 *                    topics in name order, partitions ascending); a group has 1 or more offsets
 *           int32  classic group count C (version 4 and later), then C classic groups in id order,
 *                    each in CommandCodec's layout (string groupId, string protocolType,
 *                    string protocolName, int32 generationId, string leaderId, int64 stateTimestampMs,
 *                    int32 member count M, M x (string memberId, optional string instanceId,
 *                    string clientId, string clientHost, int32 rebalanceTimeoutMs,
 *                    int32 sessionTimeoutMs, bytes subscription, bytes assignment))
 *           int32  consumer group count K (version 5 and later), then K KIP-848 consumer groups
 *                    in id order, each a stored group in ConsumerGroupCodec's layout (string
 *                    groupId, int32 groupEpoch, string assignor, int64 metadataHash,
 *                    int32 assignmentEpoch, members with their metadata (from version 6 with
 *                    their classic protocol metadata, if any) and current assignment, the target
 *                    assignment)
 *           int8   SCRAM bootstrapped (0|1) (version 7 and later)
 *           int32  SCRAM user count U (version 7 and later), then U users in name order:
 *                    string user (not empty), int32 credential count C (1..2), C credentials in
 *                    mechanism order: int8 mechanism (1 SCRAM-SHA-256, 2 SCRAM-SHA-512),
 *                    bytes salt, bytes storedKey, bytes serverKey, int32 iterations
 *           int32  ACL count A (version 8 and later), then A ACLs in AclSet's order (resource type
 *                    code, resource name, pattern type code, principal, host, operation code,
 *                    permission code), each in CommandCodec's acl layout (int8 resourceType,
 *                    string resourceName, int8 patternType, string principal, string host,
 *                    int8 operation, int8 permission); no ACL twice, each one valid
 *           int32  quota entity count E (version 9 and later), then E entities in QuotaEntity's
 *                    order, each (quota entity, int32 value count V (1..), V x quota value, keys
 *                    ascending) in QuotaCodec's layouts: entity = int8 part count P (1..3),
 *                    P x (int8 type (1 user, 2 client-id, 3 ip), optional string name (absent:
 *                    the default)); value = int8 key (1 producer_byte_rate .. 5
 *                    connection_creation_rate), int64 IEEE 754 double bits (positive, finite)
 *           int32  transactional id count X (version 10 and later), then X transaction records
 *                    in id order, each in TransactionCodec's layout; no id twice
 * last 4    int32  CRC32C of every byte before it
 * </pre>
 *
 * <p>Versions: version 2 adds the next producer id after the metadata version, version 3 the
 * committed offsets after the topics, version 4 the classic groups after the committed offsets,
 * version 5 the consumer groups after the classic groups, version 6 a classic flag (and metadata)
 * after each consumer group member's metadata, version 7 the SCRAM credentials after the consumer
 * groups, version 8 the ACLs after the SCRAM credentials, version 9 the client quotas after the ACLs, version 10 the transactional ids after the client quotas; none changes anything else. A snapshot written by an older coordinator loads with what that
 * coordinator's state had: next producer id 0 from version 1 (it never handed one out), no committed
 * offsets from versions 1 and 2, no classic groups from versions 1 to 3, no consumer groups from
 * versions 1 to 4 (it could not store any), no SCRAM credentials and not bootstrapped from versions
 * 1 to 6 (so the first leader of a newer coordinator writes the bootstrap credentials once), no ACLs
 * from versions 1 to 7, no client quotas from versions 1 to 8, no transactional ids from versions 1 to 9.
 *
 * <p>A reader rejects a wrong magic, an unknown version, a checksum mismatch, truncation and trailing
 * bytes with a {@link CorruptCommandException}, and a state that breaks an invariant (an ISR outside
 * the replicas...) with an {@link IllegalStateException}.
 *
 * <p>Thread-safety: stateless.
 */
public final class ImageCodec {

    /** "TRBM": Tributary metadata. */
    public static final int MAGIC = 0x5452424D;

    /** The format version this class writes. */
    public static final int VERSION = 10;

    /** The format version before transactional ids, still read. */
    static final int VERSION_9 = 9;

    /** The format version before client quotas, still read. */
    static final int VERSION_8 = 8;

    /** The format version before ACLs, still read. */
    static final int VERSION_7 = 7;

    /** The format version before SCRAM credentials, still read. */
    static final int VERSION_6 = 6;

    /** The format version before consumer groups' classic members, still read. */
    static final int VERSION_5 = 5;

    /** The format version before producer ids, still read. */
    static final int VERSION_1 = 1;

    /** The format version before committed offsets, still read. */
    static final int VERSION_2 = 2;

    /** The format version before classic groups, still read. */
    static final int VERSION_3 = 3;

    /** The format version before consumer groups, still read. */
    static final int VERSION_4 = 4;

    private ImageCodec() {}

    /** Encodes an image canonically. */
    public static byte[] encode(MetadataImage image) {
        Bytes.Writer w = new Bytes.Writer()
                .int32(MAGIC)
                .int8(VERSION)
                .int64(image.version())
                .int64(image.nextProducerId());
        w.int32(image.brokers().size());
        for (Broker b : image.brokers().values()) {
            w.int32(b.id())
                    .uuid(b.incarnationId())
                    .int64(b.registeredAtMs())
                    .int8(b.fenced() ? 1 : 0)
                    .optionalString(b.rack());
            w.int32(b.endpoints().size());
            b.endpoints().forEach(e -> w.string(e.listener()).string(e.host()).int32(e.port()));
        }
        w.int32(image.topics().size());
        for (Topic t : image.topics().values()) {
            w.string(t.name())
                    .uuid(t.id())
                    .stringMap(t.configs())
                    .int32(t.partitions().size());
            for (PartitionState p : t.partitions()) {
                w.intList(p.replicas())
                        .int32(p.leader())
                        .int32(p.leaderEpoch())
                        .intList(p.isr())
                        .int32(p.partitionEpoch());
            }
        }
        var groups = image.committedOffsets().asMap();
        w.int32(groups.size());
        groups.forEach((groupId, offsets) -> {
            w.string(groupId);
            CommandCodec.writeOffsets(w, offsets);
        });
        w.int32(image.classicGroups().count());
        image.classicGroups().asMap().values().forEach(group -> CommandCodec.writeClassicGroup(w, group));
        w.int32(image.consumerGroups().count());
        image.consumerGroups().asMap().values().forEach(group -> ConsumerGroupCodec.writeGroup(w, group));
        ScramCredentials scram = image.scramCredentials();
        w.int8(scram.bootstrapped() ? 1 : 0).int32(scram.userCount());
        scram.asMap().forEach((user, byMechanism) -> {
            w.string(user).int32(byMechanism.size());
            byMechanism.forEach((mechanism, credential) -> {
                w.int8(mechanism);
                CommandCodec.writeCredential(w, credential);
            });
        });
        w.int32(image.acls().size());
        image.acls().asSet().forEach(acl -> CommandCodec.writeAcl(w, acl));
        QuotaCodec.writeSection(w, image.clientQuotas());
        w.int32(image.transactions().count());
        image.transactions().asMap().values().forEach(t -> TransactionCodec.write(w, t));
        byte[] body = w.toByteArray();
        CRC32C crc = new CRC32C();
        crc.update(body);
        return ByteBuffer.allocate(body.length + 4)
                .put(body)
                .putInt((int) crc.getValue())
                .array();
    }

    /** Decodes an image, verifying its checksum first. */
    public static MetadataImage decode(byte[] bytes) {
        if (bytes.length < 4 + 1 + 8 + 4 + 4 + 4) {
            throw new CorruptCommandException("metadata image: " + bytes.length + " bytes is too short");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        int stored = ByteBuffer.wrap(bytes, bytes.length - 4, 4).getInt();
        if (stored != (int) crc.getValue()) {
            throw new CorruptCommandException("metadata image: checksum mismatch (stored %08x, computed %08x)"
                    .formatted(stored, (int) crc.getValue()));
        }
        byte[] body = java.util.Arrays.copyOf(bytes, bytes.length - 4);
        Bytes.Reader r = new Bytes.Reader(body, "metadata image");
        int magic = r.int32();
        if (magic != MAGIC) {
            throw r.corrupt("bad magic %08x".formatted(magic));
        }
        int version = r.int8();
        if (version < VERSION_1 || version > VERSION) {
            throw r.corrupt("unknown format version " + version);
        }
        long metadataVersion = r.int64();
        long nextProducerId = version >= VERSION_2 ? r.int64() : 0;
        SortedMap<Integer, Broker> brokers = new TreeMap<>();
        int brokerCount = r.count(34);
        for (int i = 0; i < brokerCount; i++) {
            int id = r.int32();
            var incarnation = r.uuid();
            long registeredAtMs = r.int64();
            boolean fenced = r.int8() != 0;
            var rack = r.optionalString();
            int n = r.count(12);
            List<Endpoint> endpoints = new ArrayList<>(n);
            for (int e = 0; e < n; e++) {
                endpoints.add(new Endpoint(r.string(), r.string(), r.int32()));
            }
            brokers.put(id, new Broker(id, endpoints, rack, incarnation, registeredAtMs, fenced));
        }
        SortedMap<String, Topic> topics = new TreeMap<>();
        int topicCount = r.count(32);
        for (int i = 0; i < topicCount; i++) {
            String name = r.string();
            var id = r.uuid();
            SortedMap<String, String> configs = r.stringMap();
            int n = r.count(20);
            List<PartitionState> partitions = new ArrayList<>(n);
            for (int p = 0; p < n; p++) {
                partitions.add(new PartitionState(r.intList(), r.int32(), r.int32(), r.intList(), r.int32()));
            }
            topics.put(name, new Topic(name, id, partitions, configs));
        }
        CommittedOffsets offsets = CommittedOffsets.EMPTY;
        if (version >= VERSION_3) {
            offsets = readGroups(r, topics);
        }
        ClassicGroups classicGroups = ClassicGroups.EMPTY;
        if (version >= VERSION_4) {
            int n = r.count(CommandCodec.MIN_CLASSIC_GROUP_BYTES);
            List<ClassicGroupRecord> records = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                records.add(CommandCodec.readClassicGroup(r));
            }
            classicGroups = ClassicGroups.of(records);
        }
        ConsumerGroups consumerGroups = ConsumerGroups.EMPTY;
        if (version >= VERSION_5) {
            int n = r.count(ConsumerGroupCodec.MIN_GROUP_BYTES);
            List<StoredConsumerGroup> consumers = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                consumers.add(ConsumerGroupCodec.readGroup(r, version));
            }
            consumerGroups = ConsumerGroups.of(consumers);
        }
        ScramCredentials scram = ScramCredentials.EMPTY;
        if (version > VERSION_6) {
            scram = readScram(r);
        }
        AclSet acls = AclSet.EMPTY;
        if (version > VERSION_7) {
            acls = readAcls(r);
        }
        ClientQuotas quotas = version > VERSION_8 ? QuotaCodec.readSection(r) : ClientQuotas.EMPTY;
        Transactions transactions = version > VERSION_9 ? readTransactions(r) : Transactions.EMPTY;
        r.expectEnd();
        return new MetadataImage(
                metadataVersion,
                brokers,
                topics,
                nextProducerId,
                offsets,
                classicGroups,
                consumerGroups,
                scram,
                acls,
                quotas,
                transactions);
    }

    /** Reads the transactions section; ids must be in order and not repeat. */
    private static Transactions readTransactions(Bytes.Reader r) {
        int n = r.count(TransactionCodec.MIN_RECORD_BYTES);
        List<io.tributary.coordinator.transaction.TransactionRecord> records = new ArrayList<>(n);
        String previous = null;
        for (int i = 0; i < n; i++) {
            var t = TransactionCodec.read(r);
            if (previous != null && previous.compareTo(t.transactionalId()) >= 0) {
                throw r.corrupt("transactional id '" + t.transactionalId() + "' out of order or twice");
            }
            previous = t.transactionalId();
            records.add(t);
        }
        return Transactions.of(records);
    }

    /** Reads the SCRAM section; users and mechanisms must be in order and not repeat. */
    private static ScramCredentials readScram(Bytes.Reader r) {
        int flag = r.int8();
        if (flag != 0 && flag != 1) {
            throw r.corrupt("bad SCRAM bootstrapped flag " + flag);
        }
        SortedMap<String, SortedMap<Integer, ScramCredentialData>> users = new TreeMap<>();
        int userCount = r.count(4 + 4);
        String previous = null;
        for (int u = 0; u < userCount; u++) {
            String user = r.string();
            if (previous != null && previous.compareTo(user) >= 0) {
                throw r.corrupt("SCRAM user '" + user + "' out of order or twice");
            }
            previous = user;
            int n = r.count(1 + 4 + 4 + 4 + 4);
            SortedMap<Integer, ScramCredentialData> byMechanism = new TreeMap<>();
            int previousMechanism = Integer.MIN_VALUE;
            for (int i = 0; i < n; i++) {
                int mechanism = r.int8();
                if (mechanism <= previousMechanism) {
                    throw r.corrupt("SCRAM mechanism " + mechanism + " of user '" + user + "' out of order");
                }
                previousMechanism = mechanism;
                byMechanism.put(mechanism, CommandCodec.readCredential(r));
            }
            users.put(user, byMechanism);
        }
        return ScramCredentials.of(users, flag == 1);
    }

    /** Reads the ACL section; the ACLs must be in {@link AclSet#ORDER} and not repeat. */
    private static AclSet readAcls(Bytes.Reader r) {
        int n = r.count(CommandCodec.MIN_ACL_BYTES);
        List<AclBinding> acls = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            AclBinding acl = CommandCodec.readAcl(r);
            if (!acls.isEmpty() && AclSet.ORDER.compare(acls.getLast(), acl) >= 0) {
                throw r.corrupt("ACL " + acl + " out of order or twice");
            }
            acls.add(acl);
        }
        return AclSet.of(acls);
    }

    private static CommittedOffsets readGroups(Bytes.Reader r, SortedMap<String, Topic> topics) {
        SortedMap<String, SortedMap<TopicPartition, CommittedOffset>> groups = new TreeMap<>();
        int groupCount = r.count(4 + 4);
        for (int g = 0; g < groupCount; g++) {
            String groupId = r.string();
            SortedMap<TopicPartition, CommittedOffset> offsets = CommandCodec.readOffsets(r);
            if (offsets.isEmpty() || groups.put(groupId, offsets) != null) {
                throw r.corrupt("group '" + groupId + "' twice or without offsets");
            }
            for (TopicPartition tp : offsets.keySet()) {
                Topic t = topics.get(tp.topic());
                if (t == null
                        || tp.partition() < 0
                        || tp.partition() >= t.partitions().size()) {
                    throw new IllegalStateException("metadata image: group '" + groupId + "' has an offset of " + tp
                            + ", which does not exist");
                }
            }
        }
        return CommittedOffsets.of(groups);
    }
}
