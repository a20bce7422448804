package io.tributary.coordinator.metadata;

/**
 * Bounds on what a client may ask of the metadata state machine, checked by {@link CommandValidator}
 * on the Raft leader before a command is appended (never while applying: a limit changed in one
 * coordinator's config must not make voters disagree about the log).
 *
 * @param maxCommandBytes the largest encoded command accepted (default 1 MiB: a create of hundreds of
 *     topics fits; a log entry much larger slows every follower's catch-up)
 * @param maxPartitionsPerTopic the most partitions one topic may have (default 10,000)
 * @param maxProducerIdsPerBlock the most producer ids one allocation may take (default 10,000: ten
 *     of Kafka's 1,000-id blocks; a broker asks again when its block runs out, so a larger block
 *     only saves a Raft write per that many new idempotent producers)
 * @param maxGroupsWithOffsets the most consumer groups that may hold committed offsets at once
 *     (default 10,000); a commit of a new group beyond it is refused. Every group's offsets are in
 *     every voter's memory and in every snapshot, so this and the next bound cap both
 * @param maxOffsetsPerGroup the most committed offsets (partitions) one group may hold (default
 *     10,000: a group reading every partition of one topic at the largest partition count fits)
 * @param maxOffsetMetadataBytes the largest client metadata string of one committed offset, in UTF-8
 *     bytes (default 4,096: Kafka's {@code offset.metadata.max.bytes})
 * @param maxClassicGroups the most classic groups whose generation may be stored at once (default
 *     10,000, as many as groups with offsets); storing a new group beyond it is refused, replacing a
 *     stored one never is. Each stored group is at most {@code maxCommandBytes} (its command), and
 *     every one is in every voter's memory and in every snapshot
 * @param maxConsumerGroups the most KIP-848 consumer groups that may be stored at once (default
 *     10,000, as many as the group coordinator holds in memory); records of a new group beyond it are
 *     refused, of a stored one never. One command holds at most {@code maxCommandBytes} of records;
 *     the group coordinator bounds a group's members ({@code groups.max-group-size})
 * @param maxScramUsers the most users that may hold SCRAM credentials at once (default 10,000);
 *     a change giving a credential to a new user beyond it is refused, to a user who has one never.
 *     Every credential is in every voter's and broker's memory, in every snapshot and in a broker's
 *     full metadata answer (about 300 bytes of JSON for a user with both mechanisms)
 * @param maxAcls the most ACLs that may be stored at once (default 100,000; Kafka has no bound);
 *     a CreateAcls beyond it is refused for each ACL past it, deletions never are. Every ACL is in
 *     every voter's and broker's memory (in the broker's authorizer index), in every snapshot and in
 *     a broker's full metadata answer (about 150 bytes of JSON each: 100,000 ACLs are about 15 MB,
 *     within the broker's 64 MiB answer bound)
 * @param maxQuotaEntities the most entities (users, client ids, their pairs, IPs, defaults) that
 *     may have client quotas at once (default 10,000; Kafka has no bound); an AlterClientQuotas
 *     giving a quota to a new entity beyond it is refused ({@code POLICY_VIOLATION}), changes to
 *     stored entities and removals never are. Every entity is in every voter's and broker's memory,
 *     in every snapshot and in a broker's full metadata answer (about 120 bytes of JSON each)
 * @param maxTransactionalIds the most transactional ids that may be stored at once (default 100,000;
 *     Kafka has no bound); an InitProducerId of a new id beyond it is refused ({@code
 *     POLICY_VIOLATION}), ids already stored never are. Every id's record (its open transaction's
 *     partitions included) is in every voter's memory and in every snapshot; an idle id is forgotten
 *     after {@code transactional-id-expiration}
 */
public record MetadataLimits(
        int maxCommandBytes,
        int maxPartitionsPerTopic,
        int maxProducerIdsPerBlock,
        int maxGroupsWithOffsets,
        int maxOffsetsPerGroup,
        int maxOffsetMetadataBytes,
        int maxClassicGroups,
        int maxConsumerGroups,
        int maxScramUsers,
        int maxAcls,
        int maxQuotaEntities,
        int maxTransactionalIds) {

    /** The default of {@link #maxTransactionalIds}. */
    public static final int DEFAULT_MAX_TRANSACTIONAL_IDS = 100_000;

    /** The default of {@link #maxQuotaEntities}. */
    public static final int DEFAULT_MAX_QUOTA_ENTITIES = 10_000;

    /** The default of {@link #maxAcls}. */
    public static final int DEFAULT_MAX_ACLS = 100_000;

    /** The default of {@link #maxScramUsers}. */
    public static final int DEFAULT_MAX_SCRAM_USERS = 10_000;

    /** The default of {@link #maxGroupsWithOffsets}. */
    public static final int DEFAULT_MAX_GROUPS_WITH_OFFSETS = 10_000;

    /** The default of {@link #maxOffsetsPerGroup}. */
    public static final int DEFAULT_MAX_OFFSETS_PER_GROUP = 10_000;

    /** The default of {@link #maxOffsetMetadataBytes} (Kafka's {@code offset.metadata.max.bytes}). */
    public static final int DEFAULT_MAX_OFFSET_METADATA_BYTES = 4096;

    /** The default of {@link #maxClassicGroups}. */
    public static final int DEFAULT_MAX_CLASSIC_GROUPS = 10_000;

    /** The default of {@link #maxConsumerGroups}. */
    public static final int DEFAULT_MAX_CONSUMER_GROUPS = 10_000;

    /** The documented defaults. */
    public static final MetadataLimits DEFAULTS = new MetadataLimits(1 << 20, 10_000, 10_000);

    public MetadataLimits {
        if (maxCommandBytes < 64) {
            throw new IllegalArgumentException("maxCommandBytes must be 64 or more, got " + maxCommandBytes);
        }
        if (maxPartitionsPerTopic < 1) {
            throw new IllegalArgumentException("maxPartitionsPerTopic must be 1 or more, got " + maxPartitionsPerTopic);
        }
        if (maxProducerIdsPerBlock < 1) {
            throw new IllegalArgumentException(
                    "maxProducerIdsPerBlock must be 1 or more, got " + maxProducerIdsPerBlock);
        }
        if (maxGroupsWithOffsets < 1) {
            throw new IllegalArgumentException("maxGroupsWithOffsets must be 1 or more, got " + maxGroupsWithOffsets);
        }
        if (maxOffsetsPerGroup < 1) {
            throw new IllegalArgumentException("maxOffsetsPerGroup must be 1 or more, got " + maxOffsetsPerGroup);
        }
        if (maxOffsetMetadataBytes < 0) {
            throw new IllegalArgumentException(
                    "maxOffsetMetadataBytes must be 0 or more, got " + maxOffsetMetadataBytes);
        }
        if (maxClassicGroups < 1) {
            throw new IllegalArgumentException("maxClassicGroups must be 1 or more, got " + maxClassicGroups);
        }
        if (maxConsumerGroups < 1) {
            throw new IllegalArgumentException("maxConsumerGroups must be 1 or more, got " + maxConsumerGroups);
        }
        if (maxScramUsers < 1) {
            throw new IllegalArgumentException("maxScramUsers must be 1 or more, got " + maxScramUsers);
        }
        if (maxAcls < 1) {
            throw new IllegalArgumentException("maxAcls must be 1 or more, got " + maxAcls);
        }
        if (maxQuotaEntities < 1) {
            throw new IllegalArgumentException("maxQuotaEntities must be 1 or more, got " + maxQuotaEntities);
        }
        if (maxTransactionalIds < 1) {
            throw new IllegalArgumentException("maxTransactionalIds must be 1 or more, got " + maxTransactionalIds);
        }
    }

    /** Limits with the default bound on transactional ids. */
    public MetadataLimits(
            int maxCommandBytes,
            int maxPartitionsPerTopic,
            int maxProducerIdsPerBlock,
            int maxGroupsWithOffsets,
            int maxOffsetsPerGroup,
            int maxOffsetMetadataBytes,
            int maxClassicGroups,
            int maxConsumerGroups,
            int maxScramUsers,
            int maxAcls,
            int maxQuotaEntities) {
        this(
                maxCommandBytes,
                maxPartitionsPerTopic,
                maxProducerIdsPerBlock,
                maxGroupsWithOffsets,
                maxOffsetsPerGroup,
                maxOffsetMetadataBytes,
                maxClassicGroups,
                maxConsumerGroups,
                maxScramUsers,
                maxAcls,
                maxQuotaEntities,
                DEFAULT_MAX_TRANSACTIONAL_IDS);
    }

    /** Limits with the default bound on client quota entities. */
    public MetadataLimits(
            int maxCommandBytes,
            int maxPartitionsPerTopic,
            int maxProducerIdsPerBlock,
            int maxGroupsWithOffsets,
            int maxOffsetsPerGroup,
            int maxOffsetMetadataBytes,
            int maxClassicGroups,
            int maxConsumerGroups,
            int maxScramUsers,
            int maxAcls) {
        this(
                maxCommandBytes,
                maxPartitionsPerTopic,
                maxProducerIdsPerBlock,
                maxGroupsWithOffsets,
                maxOffsetsPerGroup,
                maxOffsetMetadataBytes,
                maxClassicGroups,
                maxConsumerGroups,
                maxScramUsers,
                maxAcls,
                DEFAULT_MAX_QUOTA_ENTITIES);
    }

    /** Limits with the default bound on ACLs. */
    public MetadataLimits(
            int maxCommandBytes,
            int maxPartitionsPerTopic,
            int maxProducerIdsPerBlock,
            int maxGroupsWithOffsets,
            int maxOffsetsPerGroup,
            int maxOffsetMetadataBytes,
            int maxClassicGroups,
            int maxConsumerGroups,
            int maxScramUsers) {
        this(
                maxCommandBytes,
                maxPartitionsPerTopic,
                maxProducerIdsPerBlock,
                maxGroupsWithOffsets,
                maxOffsetsPerGroup,
                maxOffsetMetadataBytes,
                maxClassicGroups,
                maxConsumerGroups,
                maxScramUsers,
                DEFAULT_MAX_ACLS);
    }

    /** Limits with the default bound on SCRAM users. */
    public MetadataLimits(
            int maxCommandBytes,
            int maxPartitionsPerTopic,
            int maxProducerIdsPerBlock,
            int maxGroupsWithOffsets,
            int maxOffsetsPerGroup,
            int maxOffsetMetadataBytes,
            int maxClassicGroups,
            int maxConsumerGroups) {
        this(
                maxCommandBytes,
                maxPartitionsPerTopic,
                maxProducerIdsPerBlock,
                maxGroupsWithOffsets,
                maxOffsetsPerGroup,
                maxOffsetMetadataBytes,
                maxClassicGroups,
                maxConsumerGroups,
                DEFAULT_MAX_SCRAM_USERS);
    }

    /** Limits with the default bounds on committed offsets and classic groups. */
    public MetadataLimits(int maxCommandBytes, int maxPartitionsPerTopic, int maxProducerIdsPerBlock) {
        this(
                maxCommandBytes,
                maxPartitionsPerTopic,
                maxProducerIdsPerBlock,
                DEFAULT_MAX_GROUPS_WITH_OFFSETS,
                DEFAULT_MAX_OFFSETS_PER_GROUP,
                DEFAULT_MAX_OFFSET_METADATA_BYTES);
    }

    /** Limits with the default bound on consumer groups. */
    public MetadataLimits(
            int maxCommandBytes,
            int maxPartitionsPerTopic,
            int maxProducerIdsPerBlock,
            int maxGroupsWithOffsets,
            int maxOffsetsPerGroup,
            int maxOffsetMetadataBytes,
            int maxClassicGroups) {
        this(
                maxCommandBytes,
                maxPartitionsPerTopic,
                maxProducerIdsPerBlock,
                maxGroupsWithOffsets,
                maxOffsetsPerGroup,
                maxOffsetMetadataBytes,
                maxClassicGroups,
                DEFAULT_MAX_CONSUMER_GROUPS);
    }

    /** Limits with the default bounds on classic and consumer groups. */
    public MetadataLimits(
            int maxCommandBytes,
            int maxPartitionsPerTopic,
            int maxProducerIdsPerBlock,
            int maxGroupsWithOffsets,
            int maxOffsetsPerGroup,
            int maxOffsetMetadataBytes) {
        this(
                maxCommandBytes,
                maxPartitionsPerTopic,
                maxProducerIdsPerBlock,
                maxGroupsWithOffsets,
                maxOffsetsPerGroup,
                maxOffsetMetadataBytes,
                DEFAULT_MAX_CLASSIC_GROUPS);
    }
}
