package io.tributary.common.security.acl;

import java.util.EnumSet;
import java.util.Set;

/** The kind of resource an ACL names, with its Kafka wire code ({@code ResourceType}). */
public enum AclResourceType {
    /** A code this broker does not know; never stored. */
    UNKNOWN(0),
    /** In a filter: any type. Never stored. */
    ANY(1),
    TOPIC(2),
    GROUP(3),
    /** The cluster itself; its one resource is named {@code kafka-cluster}. */
    CLUSTER(4),
    TRANSACTIONAL_ID(5),
    DELEGATION_TOKEN(6),
    USER(7);

    /** The name of the one {@link #CLUSTER} resource. */
    public static final String CLUSTER_NAME = "kafka-cluster";

    private static final AclResourceType[] BY_CODE = new AclResourceType[8];

    static {
        for (AclResourceType type : values()) {
            BY_CODE[type.code] = type;
        }
    }

    private final byte code;

    AclResourceType(int code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    /**
     * The operations an ACL on a resource of this type can meaningfully name, as Kafka 4.4 lists them
     * (the operations reported in authorized-operations fields); empty for ANY and UNKNOWN.
     */
    public Set<AclOperation> supportedOperations() {
        return switch (this) {
            case TOPIC ->
                EnumSet.of(
                        AclOperation.READ,
                        AclOperation.WRITE,
                        AclOperation.CREATE,
                        AclOperation.DESCRIBE,
                        AclOperation.DELETE,
                        AclOperation.ALTER,
                        AclOperation.DESCRIBE_CONFIGS,
                        AclOperation.ALTER_CONFIGS);
            case GROUP ->
                EnumSet.of(
                        AclOperation.READ,
                        AclOperation.DESCRIBE,
                        AclOperation.DELETE,
                        AclOperation.DESCRIBE_CONFIGS,
                        AclOperation.ALTER_CONFIGS);
            case CLUSTER ->
                EnumSet.of(
                        AclOperation.CREATE,
                        AclOperation.CLUSTER_ACTION,
                        AclOperation.DESCRIBE_CONFIGS,
                        AclOperation.ALTER_CONFIGS,
                        AclOperation.IDEMPOTENT_WRITE,
                        AclOperation.ALTER,
                        AclOperation.DESCRIBE);
            case TRANSACTIONAL_ID -> EnumSet.of(AclOperation.DESCRIBE, AclOperation.WRITE);
            case DELEGATION_TOKEN -> EnumSet.of(AclOperation.DESCRIBE);
            case USER -> EnumSet.of(AclOperation.CREATE_TOKENS, AclOperation.DESCRIBE_TOKENS);
            case ANY, UNKNOWN -> EnumSet.noneOf(AclOperation.class);
        };
    }

    /** The type with this wire code, or {@link #UNKNOWN}. */
    public static AclResourceType fromCode(byte code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : UNKNOWN;
    }
}
