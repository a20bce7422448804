package io.tributary.common.security.acl;

/**
 * An operation an ACL allows or denies, with its Kafka wire code (the {@code Operation} field of
 * CreateAcls, DescribeAcls and DeleteAcls, and the bit index in the authorized-operations fields of
 * Metadata, DescribeCluster and DescribeGroups).
 */
public enum AclOperation {
    /** A code this broker does not know; never stored. */
    UNKNOWN(0),
    /** In a filter: any operation. Never stored. */
    ANY(1),
    /** Every operation, in an ACL. */
    ALL(2),
    READ(3),
    WRITE(4),
    CREATE(5),
    DELETE(6),
    ALTER(7),
    DESCRIBE(8),
    CLUSTER_ACTION(9),
    DESCRIBE_CONFIGS(10),
    ALTER_CONFIGS(11),
    IDEMPOTENT_WRITE(12),
    CREATE_TOKENS(13),
    DESCRIBE_TOKENS(14),
    TWO_PHASE_COMMIT(15);

    private static final AclOperation[] BY_CODE = new AclOperation[16];

    static {
        for (AclOperation operation : values()) {
            BY_CODE[operation.code] = operation;
        }
    }

    private final byte code;

    AclOperation(int code) {
        this.code = (byte) code;
    }

    /** The wire code. */
    public byte code() {
        return code;
    }

    /** The operation with this wire code, or {@link #UNKNOWN}. */
    public static AclOperation fromCode(byte code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : UNKNOWN;
    }

    /**
     * Whether an ALLOW ACL for this operation allows {@code requested}: the same operation, {@link
     * #ALL}, and Kafka's implied ones: READ, WRITE, DELETE and ALTER imply DESCRIBE; ALTER_CONFIGS
     * implies DESCRIBE_CONFIGS. (A DENY ACL denies only its own operation, or every one for ALL.)
     */
    public boolean allowImplies(AclOperation requested) {
        if (this == ALL || this == requested) {
            return true;
        }
        return switch (requested) {
            case DESCRIBE -> this == READ || this == WRITE || this == DELETE || this == ALTER;
            case DESCRIBE_CONFIGS -> this == ALTER_CONFIGS;
            default -> false;
        };
    }
}
