package io.tributary.coordinator.metadata;

import io.tributary.common.protocol.CoordinatorNodeIds;
import io.tributary.common.topic.UnsupportedTopicConfigs;
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
import io.tributary.coordinator.metadata.MetadataCommand.StoreClassicGroup;
import io.tributary.coordinator.metadata.MetadataCommand.StoreTransaction;
import io.tributary.coordinator.metadata.MetadataCommand.UnfenceBroker;
import io.tributary.coordinator.metadata.MetadataCommand.UpdateConsumerGroup;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * An immutable image of cluster metadata: brokers by id, topics by name, and the metadata version;
 * and the committed offsets of consumer groups, the classic groups' generations and the KIP-848
 * consumer groups' stored state; the users' SCRAM credentials; the ACLs; the client quotas.
 *
 * <p>{@link #apply} is the whole state machine: a pure function from (image, command) to the next
 * image. It reads no clock and no randomness, so every voter that applies the same log reaches the
 * same image, byte for byte under {@link ImageCodec}. An invalid command throws a
 * {@link MetadataException} and changes nothing; a valid command that changes nothing (fencing a
 * fenced broker) returns {@code this}; every other command returns an image with {@link #version()}
 * one higher, except the commands on committed offsets ({@link CommitOffsets}, {@link
 * DeleteGroupOffsets}, {@link DeleteOffsets}), on classic groups ({@link StoreClassicGroup},
 * {@link DeleteClassicGroup}), on consumer groups ({@link UpdateConsumerGroup}, {@link
 * DeleteConsumerGroup}) and on transactional ids ({@link StoreTransaction}, {@link
 * DeleteTransaction}), which keep the version: it counts the changes brokers watch (their
 * metadata long poll wakes on it), and brokers hold neither. Deleting a topic drops its committed
 * offsets in every group. Committed offsets and classic groups are independent: deleting a group's
 * offsets keeps its classic record and the other way round (DeleteGroups sends both commands).
 *
 * <p>Thread-safety: immutable; safe to share.
 *
 * @param version the metadata version: 0 for the empty image, one more after every change
 * @param brokers registered brokers by id
 * @param topics topics by name
 * @param nextProducerId the first producer id not handed out yet (0 in the empty image; only grows,
 *     by {@link AllocateProducerIds})
 * @param committedOffsets the committed offsets of consumer groups, only for existing partitions
 * @param classicGroups the classic consumer groups' last completed generations
 * @param consumerGroups the KIP-848 consumer groups (members, epochs, assignments, target)
 * @param scramCredentials the users' SCRAM credentials (brokers hold them: a change bumps the
 *     version) and whether the bootstrap credentials were written
 * @param acls the ACLs (brokers hold them: a change bumps the version)
 * @param clientQuotas the client quotas (brokers hold them: a change bumps the version)
 * @param transactions the transactional ids' records ({@link StoreTransaction}, {@link
 *     DeleteTransaction}; brokers do not hold them: the version stays)
 */
public record MetadataImage(
        long version,
        SortedMap<Integer, Broker> brokers,
        SortedMap<String, Topic> topics,
        long nextProducerId,
        CommittedOffsets committedOffsets,
        ClassicGroups classicGroups,
        ConsumerGroups consumerGroups,
        ScramCredentials scramCredentials,
        AclSet acls,
        ClientQuotas clientQuotas,
        Transactions transactions) {

    /** The image before the first command. */
    public static final MetadataImage EMPTY =
            new MetadataImage(0, new TreeMap<>(), new TreeMap<>(), 0, CommittedOffsets.EMPTY, ClassicGroups.EMPTY);

    /** An image without consumer groups (a version-4 snapshot, tests). */
    public MetadataImage(
            long version,
            SortedMap<Integer, Broker> brokers,
            SortedMap<String, Topic> topics,
            long nextProducerId,
            CommittedOffsets committedOffsets,
            ClassicGroups classicGroups) {
        this(version, brokers, topics, nextProducerId, committedOffsets, classicGroups, ConsumerGroups.EMPTY);
    }

    /** An image without SCRAM credentials (a version-6 snapshot or older, tests). */
    public MetadataImage(
            long version,
            SortedMap<Integer, Broker> brokers,
            SortedMap<String, Topic> topics,
            long nextProducerId,
            CommittedOffsets committedOffsets,
            ClassicGroups classicGroups,
            ConsumerGroups consumerGroups) {
        this(
                version,
                brokers,
                topics,
                nextProducerId,
                committedOffsets,
                classicGroups,
                consumerGroups,
                ScramCredentials.EMPTY);
    }

    /** An image without ACLs (a version-7 snapshot or older, tests). */
    public MetadataImage(
            long version,
            SortedMap<Integer, Broker> brokers,
            SortedMap<String, Topic> topics,
            long nextProducerId,
            CommittedOffsets committedOffsets,
            ClassicGroups classicGroups,
            ConsumerGroups consumerGroups,
            ScramCredentials scramCredentials) {
        this(
                version,
                brokers,
                topics,
                nextProducerId,
                committedOffsets,
                classicGroups,
                consumerGroups,
                scramCredentials,
                AclSet.EMPTY);
    }

    /** An image without client quotas (a version-8 snapshot or older, tests). */
    public MetadataImage(
            long version,
            SortedMap<Integer, Broker> brokers,
            SortedMap<String, Topic> topics,
            long nextProducerId,
            CommittedOffsets committedOffsets,
            ClassicGroups classicGroups,
            ConsumerGroups consumerGroups,
            ScramCredentials scramCredentials,
            AclSet acls) {
        this(
                version,
                brokers,
                topics,
                nextProducerId,
                committedOffsets,
                classicGroups,
                consumerGroups,
                scramCredentials,
                acls,
                ClientQuotas.EMPTY);
    }

    /** An image without transactions (a version-9 snapshot or older, tests). */
    public MetadataImage(
            long version,
            SortedMap<Integer, Broker> brokers,
            SortedMap<String, Topic> topics,
            long nextProducerId,
            CommittedOffsets committedOffsets,
            ClassicGroups classicGroups,
            ConsumerGroups consumerGroups,
            ScramCredentials scramCredentials,
            AclSet acls,
            ClientQuotas clientQuotas) {
        this(
                version,
                brokers,
                topics,
                nextProducerId,
                committedOffsets,
                classicGroups,
                consumerGroups,
                scramCredentials,
                acls,
                clientQuotas,
                Transactions.EMPTY);
    }

    /** Kafka's longest topic name. */
    public static final int MAX_TOPIC_NAME_LENGTH = 249;

    private static final Pattern LEGAL_TOPIC_NAME = Pattern.compile("[a-zA-Z0-9._-]+");

    public MetadataImage {
        if (nextProducerId < 0) {
            throw new IllegalStateException("negative next producer id " + nextProducerId);
        }
        Objects.requireNonNull(committedOffsets, "committedOffsets");
        Objects.requireNonNull(classicGroups, "classicGroups");
        Objects.requireNonNull(consumerGroups, "consumerGroups");
        Objects.requireNonNull(scramCredentials, "scramCredentials");
        Objects.requireNonNull(acls, "acls");
        Objects.requireNonNull(clientQuotas, "clientQuotas");
        Objects.requireNonNull(transactions, "transactions");
        brokers = Collections.unmodifiableSortedMap(new TreeMap<>(brokers));
        topics = Collections.unmodifiableSortedMap(new TreeMap<>(topics));
    }

    /** An image without committed offsets and classic groups. */
    public MetadataImage(
            long version, SortedMap<Integer, Broker> brokers, SortedMap<String, Topic> topics, long nextProducerId) {
        this(version, brokers, topics, nextProducerId, CommittedOffsets.EMPTY, ClassicGroups.EMPTY);
    }

    /** The topic with this name, or an {@link UnknownTopicException}. */
    public Topic topic(String name) {
        Topic topic = topics.get(name);
        if (topic == null) {
            throw new UnknownTopicException("unknown topic '" + name + "'");
        }
        return topic;
    }

    /** The registered broker with this id, or an {@link UnknownBrokerException}. */
    public Broker broker(int id) {
        Broker broker = brokers.get(id);
        if (broker == null) {
            throw new UnknownBrokerException("broker " + id + " is not registered");
        }
        return broker;
    }

    /** Whether {@code id} is a registered, unfenced broker. */
    public boolean isLive(int id) {
        Broker b = brokers.get(id);
        return b != null && !b.fenced();
    }

    /** The registered, unfenced brokers, by id. */
    public List<Broker> liveBrokers() {
        return brokers.values().stream().filter(b -> !b.fenced()).toList();
    }

    /** How many partitions have no leader. */
    public long offlinePartitionCount() {
        return topics.values().stream()
                .flatMap(t -> t.partitions().stream())
                .filter(PartitionState::offline)
                .count();
    }

    /**
     * Applies a command.
     *
     * @return the next image ({@code this} when the command changes nothing)
     * @throws MetadataException if the command is not valid against this image
     */
    public MetadataImage apply(MetadataCommand command) {
        return switch (command) {
            case RegisterBroker c -> registerBroker(c);
            case FenceBroker c -> fenceBroker(c);
            case UnfenceBroker c -> unfenceBroker(c);
            case CreateTopics c -> createTopics(c);
            case DeleteTopic c -> deleteTopic(c);
            case AddPartitions c -> addPartitions(c);
            case AlterTopicConfigs c -> alterTopicConfigs(c);
            case AlterPartition c -> alterPartition(c);
            case ElectLeaders c -> electLeaders(c);
            case AllocateProducerIds c -> allocateProducerIds(c);
            case CommitOffsets c -> commitOffsets(c);
            case DeleteGroupOffsets c -> withOffsets(committedOffsets.withoutGroup(checkGroupId(c.groupId())));
            case DeleteOffsets c ->
                withOffsets(committedOffsets.withoutPartitions(checkGroupId(c.groupId()), c.partitions()));
            case StoreClassicGroup c -> withClassicGroups(classicGroups.with(c.group()));
            case DeleteClassicGroup c -> withClassicGroups(classicGroups.without(checkGroupId(c.groupId())));
            case UpdateConsumerGroup c -> withConsumerGroups(consumerGroups.apply(c.groupId(), c.records()));
            case DeleteConsumerGroup c -> withConsumerGroups(consumerGroups.without(checkGroupId(c.groupId())));
            case AlterScramCredentials c -> withScram(scramCredentials.with(c.deletions(), c.upsertions()));
            case BootstrapScramCredentials c ->
                scramCredentials.bootstrapped()
                        ? this
                        : withScram(
                                scramCredentials.with(List.of(), c.upsertions()).markBootstrapped());
            case CreateAcls c -> withAcls(acls.with(c.acls()));
            case DeleteAcls c -> withAcls(acls.without(c.acls()));
            case AlterClientQuotas c -> withClientQuotas(clientQuotas.with(c.changes()));
            case StoreTransaction c -> withTransactions(storeTransaction(c));
            case DeleteTransaction c -> withTransactions(transactions.without(c.transactionalId(), c.revision()));
        };
    }

    private MetadataImage registerBroker(RegisterBroker c) {
        if (c.brokerId() < 0 || c.brokerId() > CoordinatorNodeIds.MAX_BROKER_ID) {
            throw new InvalidRequestException("broker id must be 0.." + CoordinatorNodeIds.MAX_BROKER_ID
                    + " (larger node ids name the group coordinators), got " + c.brokerId());
        }
        if (c.endpoints().isEmpty()) {
            throw new InvalidRequestException("broker " + c.brokerId() + " registers no endpoint");
        }
        Set<String> listeners = new HashSet<>();
        for (Endpoint e : c.endpoints()) {
            if (e.port() < 1
                    || e.port() > 65535
                    || e.host().isBlank()
                    || e.listener().isBlank()) {
                throw new InvalidRequestException("broker " + c.brokerId() + " has a bad endpoint " + e);
            }
            if (!listeners.add(e.listener())) {
                throw new InvalidRequestException(
                        "broker " + c.brokerId() + " registers listener " + e.listener() + " twice");
            }
        }
        if (c.rack().isPresent() && c.rack().get().isBlank()) {
            throw new InvalidRequestException("broker " + c.brokerId() + " has a blank rack");
        }
        Broker old = brokers.get(c.brokerId());
        if (old != null && old.incarnationId().equals(c.incarnationId())) {
            if (old.endpoints().equals(c.endpoints()) && old.rack().equals(c.rack())) {
                return this; // a retried registration
            }
            throw new InvalidRequestException("broker " + c.brokerId() + " re-registers incarnation "
                    + c.incarnationId() + " with different endpoints or rack");
        }
        SortedMap<String, Topic> newTopics = topics;
        if (old != null && !old.fenced()) {
            newTopics = withBrokerFenced(c.brokerId());
        }
        SortedMap<Integer, Broker> newBrokers = new TreeMap<>(brokers);
        newBrokers.put(
                c.brokerId(),
                new Broker(c.brokerId(), c.endpoints(), c.rack(), c.incarnationId(), c.timestampMs(), true));
        return new MetadataImage(
                version + 1,
                newBrokers,
                newTopics,
                nextProducerId,
                committedOffsets,
                classicGroups,
                consumerGroups,
                scramCredentials,
                acls,
                clientQuotas,
                transactions);
    }

    private Broker currentIncarnation(int brokerId, UUID incarnationId) {
        Broker b = broker(brokerId);
        if (!b.incarnationId().equals(incarnationId)) {
            throw new StaleEpochException("broker %d incarnation %s is not the registered one %s"
                    .formatted(brokerId, incarnationId, b.incarnationId()));
        }
        return b;
    }

    private MetadataImage fenceBroker(FenceBroker c) {
        Broker b = currentIncarnation(c.brokerId(), c.incarnationId());
        if (b.fenced()) {
            return this;
        }
        SortedMap<Integer, Broker> newBrokers = new TreeMap<>(brokers);
        newBrokers.put(b.id(), b.withFenced(true));
        return new MetadataImage(
                version + 1,
                newBrokers,
                withBrokerFenced(b.id()),
                nextProducerId,
                committedOffsets,
                classicGroups,
                consumerGroups,
                scramCredentials,
                acls,
                clientQuotas,
                transactions);
    }

    /** Topics after broker {@code id} leaves every ISR and leadership (its broker record not yet fenced). */
    private SortedMap<String, Topic> withBrokerFenced(int id) {
        SortedMap<String, Topic> newTopics = new TreeMap<>();
        for (Topic t : topics.values()) {
            List<PartitionState> parts = new ArrayList<>(t.partitions().size());
            boolean changed = false;
            for (PartitionState p : t.partitions()) {
                PartitionState q = p;
                if (p.isr().contains(id) || p.leader() == id) {
                    List<Integer> isr = new ArrayList<>(p.isr());
                    isr.remove(Integer.valueOf(id));
                    if (isr.isEmpty()) {
                        isr = p.isr(); // the last ISR member stays: it is the one with all the data
                    }
                    int leader = p.leader();
                    if (leader == id || leader == PartitionState.NO_LEADER) {
                        leader = firstLive(p.replicas(), isr, id);
                        if (leader == PartitionState.NO_LEADER && t.uncleanLeaderElectionEnabled()) {
                            leader = firstLive(p.replicas(), p.replicas(), id);
                            if (leader != PartitionState.NO_LEADER) {
                                isr = List.of(leader);
                            }
                        }
                    }
                    q = p.change(leader, isr);
                }
                changed |= q != p;
                parts.add(q);
            }
            newTopics.put(t.name(), changed ? t.withPartitions(parts) : t);
        }
        return newTopics;
    }

    /** The first replica (in replica order) in {@code candidates} that is live and not {@code except}. */
    private int firstLive(List<Integer> replicas, List<Integer> candidates, int except) {
        for (int r : replicas) {
            if (r != except && candidates.contains(r) && isLive(r)) {
                return r;
            }
        }
        return PartitionState.NO_LEADER;
    }

    private MetadataImage unfenceBroker(UnfenceBroker c) {
        Broker b = currentIncarnation(c.brokerId(), c.incarnationId());
        if (!b.fenced()) {
            return this;
        }
        int id = b.id();
        SortedMap<String, Topic> newTopics = new TreeMap<>();
        for (Topic t : topics.values()) {
            List<PartitionState> parts = new ArrayList<>(t.partitions().size());
            boolean changed = false;
            for (PartitionState p : t.partitions()) {
                PartitionState q = p;
                if (p.offline() && p.isr().contains(id)) {
                    q = p.change(id, p.isr());
                } else if (p.offline()
                        && t.uncleanLeaderElectionEnabled()
                        && p.replicas().contains(id)) {
                    q = p.change(id, List.of(id));
                }
                changed |= q != p;
                parts.add(q);
            }
            newTopics.put(t.name(), changed ? t.withPartitions(parts) : t);
        }
        SortedMap<Integer, Broker> newBrokers = new TreeMap<>(brokers);
        newBrokers.put(id, b.withFenced(false));
        return new MetadataImage(
                version + 1,
                newBrokers,
                newTopics,
                nextProducerId,
                committedOffsets,
                classicGroups,
                consumerGroups,
                scramCredentials,
                acls,
                clientQuotas,
                transactions);
    }

    /** Checks a topic name against Kafka's rules. */
    public static void checkTopicName(String name) {
        if (name.isEmpty() || name.length() > MAX_TOPIC_NAME_LENGTH) {
            throw new InvalidRequestException(
                    "topic name must be 1.." + MAX_TOPIC_NAME_LENGTH + " characters, got " + name.length());
        }
        if (name.equals(".")
                || name.equals("..")
                || !LEGAL_TOPIC_NAME.matcher(name).matches()) {
            throw new InvalidRequestException(
                    "topic name '" + name + "' is not legal: use [a-zA-Z0-9._-], and not '.' or '..'");
        }
    }

    private List<PartitionState> newPartitions(String topic, List<List<Integer>> assignments, int replicationFactor) {
        List<PartitionState> parts = new ArrayList<>(assignments.size());
        for (List<Integer> replicas : assignments) {
            if (replicas.size() != replicationFactor) {
                throw new InvalidReplicationFactorException("topic '%s': every partition needs %d replicas, got %s"
                        .formatted(topic, replicationFactor, replicas));
            }
            if (replicas.stream().distinct().count() != replicas.size()) {
                throw new InvalidRequestException(
                        "topic '%s': replicas %s are not distinct".formatted(topic, replicas));
            }
            for (int r : replicas) {
                broker(r);
            }
            List<Integer> isr = replicas.stream().filter(this::isLive).toList();
            if (isr.isEmpty()) {
                throw new InvalidReplicationFactorException(
                        "topic '%s': no replica of %s is a live broker".formatted(topic, replicas));
            }
            parts.add(new PartitionState(replicas, isr.getFirst(), 0, isr, 0));
        }
        return parts;
    }

    private MetadataImage createTopics(CreateTopics c) {
        if (c.topics().isEmpty()) {
            throw new InvalidRequestException("no topic to create");
        }
        SortedMap<String, Topic> newTopics = new TreeMap<>(topics);
        Set<UUID> ids = new HashSet<>();
        topics.values().forEach(t -> ids.add(t.id()));
        for (NewTopic nt : c.topics()) {
            checkTopicName(nt.name());
            if (newTopics.containsKey(nt.name())) {
                throw new TopicExistsException("topic '" + nt.name() + "' already exists");
            }
            if (nt.topicId().getMostSignificantBits() == 0 && nt.topicId().getLeastSignificantBits() == 0) {
                throw new InvalidRequestException("topic '" + nt.name() + "' has the zero topic id");
            }
            if (!ids.add(nt.topicId())) {
                throw new TopicExistsException("topic id " + nt.topicId() + " is already in use");
            }
            if (nt.assignments().isEmpty()) {
                throw new InvalidRequestException("topic '" + nt.name() + "' needs at least one partition");
            }
            int rf = nt.assignments().getFirst().size();
            if (rf < 1) {
                throw new InvalidReplicationFactorException(
                        "topic '" + nt.name() + "': replication factor must be 1 or more");
            }
            SortedMap<String, String> configs = TopicConfigs.validate(nt.configs());
            newTopics.put(
                    nt.name(),
                    new Topic(nt.name(), nt.topicId(), newPartitions(nt.name(), nt.assignments(), rf), configs));
        }
        return new MetadataImage(
                version + 1,
                brokers,
                newTopics,
                nextProducerId,
                committedOffsets,
                classicGroups,
                consumerGroups,
                scramCredentials,
                acls,
                clientQuotas,
                transactions);
    }

    private MetadataImage deleteTopic(DeleteTopic c) {
        topic(c.name());
        SortedMap<String, Topic> newTopics = new TreeMap<>(topics);
        newTopics.remove(c.name());
        return new MetadataImage(
                version + 1,
                brokers,
                newTopics,
                nextProducerId,
                committedOffsets.withoutTopic(c.name()),
                classicGroups,
                consumerGroups,
                scramCredentials,
                acls,
                clientQuotas,
                transactions);
    }

    private MetadataImage addPartitions(AddPartitions c) {
        Topic t = topic(c.topic());
        if (c.assignments().isEmpty()) {
            throw new InvalidPartitionsException("no partition to add to topic '" + c.topic() + "'");
        }
        if (c.currentPartitionCount() != t.partitions().size()) {
            throw new InvalidPartitionsException("topic '%s' has %d partitions, not %d: partitions were added meanwhile"
                    .formatted(c.topic(), t.partitions().size(), c.currentPartitionCount()));
        }
        List<PartitionState> parts = new ArrayList<>(t.partitions());
        parts.addAll(newPartitions(t.name(), c.assignments(), t.replicationFactor()));
        return withTopic(t.withPartitions(parts));
    }

    private MetadataImage alterTopicConfigs(AlterTopicConfigs c) {
        Topic t = topic(c.topic());
        Map<String, String> merged = new TreeMap<>(t.configs());
        for (String key : c.remove()) {
            if (!TopicConfigs.keys().contains(key)) {
                throw new InvalidConfigException(
                        UnsupportedTopicConfigs.refusal(key).getMessage());
            }
            if (c.set().containsKey(key)) {
                throw new InvalidConfigException("topic config '" + key + "' is both set and removed");
            }
            merged.remove(key);
        }
        merged.putAll(TopicConfigs.validate(c.set()));
        if (merged.equals(t.configs())) {
            return this;
        }
        return withTopic(t.withConfigs(merged));
    }

    private PartitionState partition(Topic t, int index) {
        if (index < 0 || index >= t.partitions().size()) {
            throw new UnknownTopicException("unknown partition " + t.name() + "-" + index);
        }
        return t.partitions().get(index);
    }

    private MetadataImage alterPartition(AlterPartition c) {
        Topic t = topic(c.topic());
        PartitionState p = partition(t, c.partition());
        String tp = c.topic() + "-" + c.partition();
        if (c.leaderEpoch() != p.leaderEpoch() || c.partitionEpoch() != p.partitionEpoch()) {
            throw new StaleEpochException("%s: proposed at leader epoch %d, partition epoch %d; current are %d, %d"
                    .formatted(tp, c.leaderEpoch(), c.partitionEpoch(), p.leaderEpoch(), p.partitionEpoch()));
        }
        if (c.leaderId() != p.leader()) {
            throw new StaleEpochException(
                    "%s: broker %d is not the leader (%d is)".formatted(tp, c.leaderId(), p.leader()));
        }
        List<Integer> isr = c.newIsr();
        if (!isr.contains(p.leader())) {
            throw new InvalidRequestException(
                    "%s: the new ISR %s leaves out the leader %d".formatted(tp, isr, p.leader()));
        }
        if (isr.stream().distinct().count() != isr.size() || !p.replicas().containsAll(isr)) {
            throw new InvalidRequestException(
                    "%s: the new ISR %s is not a set of the replicas %s".formatted(tp, isr, p.replicas()));
        }
        for (int r : isr) {
            if (!isLive(r)) {
                throw new InvalidRequestException("%s: broker %d is fenced and cannot join the ISR".formatted(tp, r));
            }
        }
        PartitionState q = p.change(p.leader(), isr);
        return q == p ? this : withPartition(t, c.partition(), q);
    }

    private MetadataImage electLeaders(ElectLeaders c) {
        if (c.partitions().isEmpty()) {
            throw new InvalidRequestException("no partition to elect a leader for");
        }
        MetadataImage image = this;
        for (TopicPartition tp : c.partitions()) {
            Topic t = image.topic(tp.topic());
            PartitionState p = partition(t, tp.partition());
            PartitionState q = p;
            if (c.type() == ElectionType.PREFERRED) {
                int preferred = p.preferredLeader();
                if (p.leader() != preferred && p.isr().contains(preferred) && isLive(preferred)) {
                    q = p.change(preferred, p.isr());
                }
            } else {
                if (!t.uncleanLeaderElectionEnabled()) {
                    throw new InvalidRequestException("%s: unclean leader election is off for topic '%s' (%s=false)"
                            .formatted(tp, t.name(), TopicConfigs.UNCLEAN_LEADER_ELECTION_ENABLE));
                }
                if (p.offline()) {
                    int clean = firstLive(p.replicas(), p.isr(), PartitionState.NO_LEADER);
                    int leader = clean != PartitionState.NO_LEADER
                            ? clean
                            : firstLive(p.replicas(), p.replicas(), PartitionState.NO_LEADER);
                    if (leader != PartitionState.NO_LEADER) {
                        q = p.change(leader, clean != PartitionState.NO_LEADER ? p.isr() : List.of(leader));
                    }
                }
            }
            if (q != p) {
                image = new MetadataImage(
                        image.version,
                        image.brokers,
                        image.withPartition(t, tp.partition(), q).topics,
                        nextProducerId,
                        committedOffsets,
                        classicGroups,
                        consumerGroups,
                        scramCredentials,
                        acls,
                        clientQuotas,
                        transactions);
            }
        }
        return image == this
                ? this
                : new MetadataImage(
                        version + 1,
                        image.brokers,
                        image.topics,
                        nextProducerId,
                        committedOffsets,
                        classicGroups,
                        consumerGroups,
                        scramCredentials,
                        acls,
                        clientQuotas,
                        transactions);
    }

    private MetadataImage allocateProducerIds(AllocateProducerIds c) {
        if (c.brokerId() < CoordinatorNodeIds.BASE) {
            broker(c.brokerId()); // a coordinator's node id asks for its transaction coordinator
        }
        if (c.count() < 1) {
            throw new InvalidRequestException("a producer id block needs 1 or more ids, got " + c.count());
        }
        if (nextProducerId > Long.MAX_VALUE - c.count()) {
            throw new InvalidRequestException("producer ids are exhausted: %d more from %d pass the largest id %d"
                    .formatted(c.count(), nextProducerId, Long.MAX_VALUE - 1));
        }
        return new MetadataImage(
                version + 1,
                brokers,
                topics,
                nextProducerId + c.count(),
                committedOffsets,
                classicGroups,
                consumerGroups,
                scramCredentials,
                acls,
                clientQuotas,
                transactions);
    }

    private static String checkGroupId(String groupId) {
        if (groupId.isEmpty()) {
            throw new InvalidRequestException("a consumer group id must not be empty");
        }
        return groupId;
    }

    private MetadataImage commitOffsets(CommitOffsets c) {
        checkGroupId(c.groupId());
        if (c.offsets().isEmpty()) {
            throw new InvalidRequestException("no offset to commit for group '" + c.groupId() + "'");
        }
        Map<TopicPartition, CommittedOffset> existing = new TreeMap<>();
        c.offsets().forEach((tp, offset) -> {
            if (partitionState(tp).isPresent()) {
                existing.put(tp, offset);
            }
        });
        return withOffsets(committedOffsets.withCommit(c.groupId(), existing));
    }

    /** This image with other committed offsets, at the same metadata version (brokers do not watch offsets). */
    private MetadataImage withOffsets(CommittedOffsets offsets) {
        return offsets == committedOffsets
                ? this
                : new MetadataImage(
                        version,
                        brokers,
                        topics,
                        nextProducerId,
                        offsets,
                        classicGroups,
                        consumerGroups,
                        scramCredentials,
                        acls,
                        clientQuotas,
                        transactions);
    }

    /** This image with other classic groups, at the same metadata version (brokers do not watch groups). */
    private MetadataImage withClassicGroups(ClassicGroups groups) {
        return groups == classicGroups
                ? this
                : new MetadataImage(
                        version,
                        brokers,
                        topics,
                        nextProducerId,
                        committedOffsets,
                        groups,
                        consumerGroups,
                        scramCredentials,
                        acls,
                        clientQuotas,
                        transactions);
    }

    /** This image with other consumer groups, at the same metadata version (brokers do not watch groups). */
    private MetadataImage withConsumerGroups(ConsumerGroups groups) {
        return groups == consumerGroups
                ? this
                : new MetadataImage(
                        version,
                        brokers,
                        topics,
                        nextProducerId,
                        committedOffsets,
                        classicGroups,
                        groups,
                        scramCredentials,
                        acls,
                        clientQuotas,
                        transactions);
    }

    /**
     * This image with other SCRAM credentials: one version later when a credential changed (brokers
     * hold them), the same version when only the bootstrap mark did.
     */
    private MetadataImage withScram(ScramCredentials scram) {
        if (scram == scramCredentials) {
            return this;
        }
        long next = scram.asMap().equals(scramCredentials.asMap()) ? version : version + 1;
        return new MetadataImage(
                next,
                brokers,
                topics,
                nextProducerId,
                committedOffsets,
                classicGroups,
                consumerGroups,
                scram,
                acls,
                clientQuotas,
                transactions);
    }

    /** This image with other ACLs, one version later (brokers hold them). */
    private MetadataImage withAcls(AclSet next) {
        return next == acls
                ? this
                : new MetadataImage(
                        version + 1,
                        brokers,
                        topics,
                        nextProducerId,
                        committedOffsets,
                        classicGroups,
                        consumerGroups,
                        scramCredentials,
                        next,
                        clientQuotas,
                        transactions);
    }

    /** This image with other client quotas, one version later (brokers hold them). */
    private MetadataImage withClientQuotas(ClientQuotas next) {
        return next == clientQuotas
                ? this
                : new MetadataImage(
                        version + 1,
                        brokers,
                        topics,
                        nextProducerId,
                        committedOffsets,
                        classicGroups,
                        consumerGroups,
                        scramCredentials,
                        acls,
                        next,
                        transactions);
    }

    /** The transactions with a record stored, which must hold a producer id handed out already. */
    private Transactions storeTransaction(StoreTransaction c) {
        long producerId = Math.max(c.transaction().producerId(), c.transaction().nextProducerId());
        if (producerId >= nextProducerId) {
            throw new InvalidRequestException("transactional id '%s' holds producer id %d, never handed out"
                    .formatted(c.transaction().transactionalId(), producerId));
        }
        return transactions.with(c.transaction());
    }

    /** This image with other transactions, at the same metadata version (brokers do not watch them). */
    private MetadataImage withTransactions(Transactions next) {
        return next == transactions
                ? this
                : new MetadataImage(
                        version,
                        brokers,
                        topics,
                        nextProducerId,
                        committedOffsets,
                        classicGroups,
                        consumerGroups,
                        scramCredentials,
                        acls,
                        clientQuotas,
                        next);
    }

    private MetadataImage withTopic(Topic t) {
        SortedMap<String, Topic> newTopics = new TreeMap<>(topics);
        newTopics.put(t.name(), t);
        return new MetadataImage(
                version + 1,
                brokers,
                newTopics,
                nextProducerId,
                committedOffsets,
                classicGroups,
                consumerGroups,
                scramCredentials,
                acls,
                clientQuotas,
                transactions);
    }

    private MetadataImage withPartition(Topic t, int index, PartitionState p) {
        List<PartitionState> parts = new ArrayList<>(t.partitions());
        parts.set(index, p);
        return withTopic(t.withPartitions(parts));
    }

    /** The partition state, or empty if the topic or partition does not exist. */
    public Optional<PartitionState> partitionState(TopicPartition tp) {
        Topic t = topics.get(tp.topic());
        if (t == null || tp.partition() < 0 || tp.partition() >= t.partitions().size()) {
            return Optional.empty();
        }
        return Optional.of(t.partitions().get(tp.partition()));
    }
}
