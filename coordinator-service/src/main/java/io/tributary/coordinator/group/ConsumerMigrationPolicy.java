package io.tributary.coordinator.group;

import java.util.Locale;

/**
 * Whether a group id moves between the classic protocol and KIP-848's while it has members
 * ({@code tributary.coordinator.groups.consumer-migration-policy}, Kafka's {@code
 * group.consumer.migration.policy}, same values and default):
 *
 * <ul>
 *   <li>upgrade: a ConsumerGroupHeartbeat joining a classic group with members converts it to a
 *       consumer group whose classic members keep speaking JoinGroup/SyncGroup;
 *   <li>downgrade: when the last KIP-848 member of a consumer group leaves (or is removed) and only
 *       classic members remain, the group converts back to a classic group and rebalances.
 * </ul>
 *
 * Where a conversion is not allowed the group keeps its type: a ConsumerGroupHeartbeat into a classic
 * group with members is GROUP_ID_NOT_FOUND. A JoinGroup into a consumer group with members is
 * served by the consumer group whatever the policy (as Kafka).
 */
public enum ConsumerMigrationPolicy {
    DISABLED,
    DOWNGRADE,
    UPGRADE,
    BIDIRECTIONAL;

    public boolean upgradeEnabled() {
        return this == UPGRADE || this == BIDIRECTIONAL;
    }

    public boolean downgradeEnabled() {
        return this == DOWNGRADE || this == BIDIRECTIONAL;
    }

    /** The policy of Kafka's name for it ({@code disabled}, {@code downgrade}, {@code upgrade}, {@code bidirectional}). */
    public static ConsumerMigrationPolicy of(String name) {
        return valueOf(name.trim().toUpperCase(Locale.ROOT));
    }
}
