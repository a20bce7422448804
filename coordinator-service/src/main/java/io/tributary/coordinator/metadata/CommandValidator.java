package io.tributary.coordinator.metadata;

import io.tributary.coordinator.metadata.MetadataCommand.AddPartitions;
import io.tributary.coordinator.metadata.MetadataCommand.AllocateProducerIds;
import io.tributary.coordinator.metadata.MetadataCommand.CommitOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.CreateTopics;
import io.tributary.coordinator.metadata.MetadataCommand.StoreClassicGroup;
import io.tributary.coordinator.metadata.MetadataCommand.StoreTransaction;
import io.tributary.coordinator.metadata.MetadataCommand.UpdateConsumerGroup;
import java.nio.charset.StandardCharsets;

/**
 * Checks a command before it is appended to the Raft log: it decodes, it is within
 * {@link MetadataLimits}, and it applies to the current image. The Raft leader runs this on its
 * latest applied image; entries appended but not yet applied may still make a validated command
 * fail when it is applied, which {@link MetadataImage#apply} handles deterministically (the command
 * changes nothing and its reply carries the error).
 *
 * <p>Thread-safety: immutable.
 */
public final class CommandValidator {

    private final MetadataLimits limits;

    public CommandValidator(MetadataLimits limits) {
        this.limits = limits;
    }

    /**
     * Decodes and validates an encoded command.
     *
     * @return the decoded command
     * @throws InvalidRequestException if it is too large or does not decode
     * @throws MetadataException if it is not valid against {@code image}
     */
    public MetadataCommand validate(MetadataImage image, byte[] encoded) {
        if (encoded.length > limits.maxCommandBytes()) {
            throw new InvalidRequestException("command of %d bytes is larger than the limit of %d bytes"
                    .formatted(encoded.length, limits.maxCommandBytes()));
        }
        MetadataCommand command;
        try {
            command = CommandCodec.decode(encoded);
        } catch (CorruptCommandException e) {
            throw new InvalidRequestException("command does not decode: " + e.getMessage());
        }
        validate(image, command);
        return command;
    }

    /**
     * Validates a command against an image.
     *
     * @return the image after the command
     * @throws MetadataException if the command is not valid
     */
    public MetadataImage validate(MetadataImage image, MetadataCommand command) {
        switch (command) {
            case CreateTopics c ->
                c.topics().forEach(t -> {
                    if (t.assignments().size() > limits.maxPartitionsPerTopic()) {
                        throw new InvalidRequestException(
                                tooManyPartitions(t.name(), t.assignments().size()));
                    }
                });
            case AddPartitions c -> {
                long partitions = (long) image.topic(c.topic()).partitions().size()
                        + c.assignments().size();
                if (partitions > limits.maxPartitionsPerTopic()) {
                    throw new InvalidPartitionsException(tooManyPartitions(c.topic(), partitions));
                }
            }
            case AllocateProducerIds c -> {
                if (c.count() > limits.maxProducerIdsPerBlock()) {
                    throw new InvalidRequestException("a producer id block may have at most %d ids, got %d"
                            .formatted(limits.maxProducerIdsPerBlock(), c.count()));
                }
            }
            case CommitOffsets c -> checkCommit(image, c);
            case StoreClassicGroup c -> checkClassicGroup(image, c);
            case UpdateConsumerGroup c -> checkConsumerGroup(image, c);
            case StoreTransaction c -> checkTransaction(image, c);
            default -> {}
        }
        MetadataImage next = image.apply(command);
        checkScramUsers(image, next);
        checkAcls(image, next);
        checkQuotaEntities(image, next);
        return next;
    }

    /** The bounds on committed offsets: metadata size, offsets per group, groups with offsets. */
    private void checkCommit(MetadataImage image, CommitOffsets c) {
        for (var e : c.offsets().entrySet()) {
            int bytes = e.getValue().metadata().getBytes(StandardCharsets.UTF_8).length;
            if (bytes > limits.maxOffsetMetadataBytes()) {
                throw new InvalidRequestException("group '%s': the metadata of %s is %d bytes; the limit is %d"
                        .formatted(c.groupId(), e.getKey(), bytes, limits.maxOffsetMetadataBytes()));
            }
        }
        var existing = image.committedOffsets().of(c.groupId());
        if (existing.isEmpty() && image.committedOffsets().groupCount() >= limits.maxGroupsWithOffsets()) {
            throw new InvalidRequestException("group '%s': %d groups hold committed offsets; the limit is %d"
                    .formatted(c.groupId(), image.committedOffsets().groupCount(), limits.maxGroupsWithOffsets()));
        }
        long offsets = existing.size()
                + c.offsets().keySet().stream()
                        .filter(tp -> !existing.containsKey(tp))
                        .count();
        if (offsets > limits.maxOffsetsPerGroup()) {
            throw new InvalidRequestException("group '%s' would hold %d committed offsets; the limit is %d"
                    .formatted(c.groupId(), offsets, limits.maxOffsetsPerGroup()));
        }
    }

    /** The bound on classic groups: a new group only below {@link MetadataLimits#maxClassicGroups()}. */
    private void checkClassicGroup(MetadataImage image, StoreClassicGroup c) {
        ClassicGroups groups = image.classicGroups();
        String groupId = c.group().groupId();
        if (groups.get(groupId).isEmpty() && groups.count() >= limits.maxClassicGroups()) {
            throw new InvalidRequestException("classic group '%s': %d classic groups are stored; the limit is %d"
                    .formatted(groupId, groups.count(), limits.maxClassicGroups()));
        }
    }

    /** The bound on transactional ids: a new id only below {@link MetadataLimits#maxTransactionalIds()}. */
    private void checkTransaction(MetadataImage image, StoreTransaction c) {
        Transactions transactions = image.transactions();
        String id = c.transaction().transactionalId();
        if (transactions.get(id).isEmpty() && transactions.count() >= limits.maxTransactionalIds()) {
            throw new InvalidRequestException("transactional id '%s': %d transactional ids are stored; the limit is %d"
                    .formatted(id, transactions.count(), limits.maxTransactionalIds()));
        }
    }

    /** The bound on consumer groups: a new group only below {@link MetadataLimits#maxConsumerGroups()}. */
    private void checkConsumerGroup(MetadataImage image, UpdateConsumerGroup c) {
        ConsumerGroups groups = image.consumerGroups();
        if (groups.get(c.groupId()).isEmpty() && groups.count() >= limits.maxConsumerGroups()) {
            throw new InvalidRequestException("consumer group '%s': %d consumer groups are stored; the limit is %d"
                    .formatted(c.groupId(), groups.count(), limits.maxConsumerGroups()));
        }
    }

    /**
     * The bound on SCRAM users: a change may not leave more users with credentials than {@link
     * MetadataLimits#maxScramUsers()} and more than before (a bound lowered later never blocks
     * deletions or changes of existing users). Tributary's own logins do not count ({@link
     * ScramCredentials#clientUserCount()}): the coordinators write one per broker.
     */
    private void checkScramUsers(MetadataImage before, MetadataImage after) {
        int users = after.scramCredentials().clientUserCount();
        if (users > limits.maxScramUsers() && users > before.scramCredentials().clientUserCount()) {
            throw new InvalidRequestException(
                    "%d users would have SCRAM credentials; the limit is %d".formatted(users, limits.maxScramUsers()));
        }
    }

    /**
     * The bound on client quota entities: a change may not leave more than {@link
     * MetadataLimits#maxQuotaEntities()} and more than before.
     */
    private void checkQuotaEntities(MetadataImage before, MetadataImage after) {
        int entities = after.clientQuotas().size();
        if (entities > limits.maxQuotaEntities()
                && entities > before.clientQuotas().size()) {
            throw new InvalidRequestException("%d client quota entities would be stored; the limit is %d"
                    .formatted(entities, limits.maxQuotaEntities()));
        }
    }

    /**
     * The bound on ACLs: a change may not leave more than {@link MetadataLimits#maxAcls()} and more
     * than before (a bound lowered later never blocks deletions).
     */
    private void checkAcls(MetadataImage before, MetadataImage after) {
        int acls = after.acls().size();
        if (acls > limits.maxAcls() && acls > before.acls().size()) {
            throw new InvalidRequestException(
                    "%d ACLs would be stored; the limit is %d".formatted(acls, limits.maxAcls()));
        }
    }

    private String tooManyPartitions(String topic, long partitions) {
        return "topic '%s' would have %d partitions; the limit is %d"
                .formatted(topic, partitions, limits.maxPartitionsPerTopic());
    }
}
