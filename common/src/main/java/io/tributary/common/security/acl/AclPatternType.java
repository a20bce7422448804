package io.tributary.common.security.acl;

/** How an ACL's resource name matches, with its Kafka wire code ({@code PatternType}). */
public enum AclPatternType {
    /** A code this broker does not know; never stored. */
    UNKNOWN(0),
    /** In a filter: any pattern type, the name compared as given. Never stored. */
    ANY(1),
    /**
     * In a filter: every stored pattern that matches the filter's name (a literal of that name, the
     * literal wildcard {@code *}, a prefix of it). Never stored.
     */
    MATCH(2),
    /** The name itself, or {@code *} for every name of the type. */
    LITERAL(3),
    /** Every name that starts with the ACL's name. */
    PREFIXED(4);

    private static final AclPatternType[] BY_CODE = new AclPatternType[5];

    static {
        for (AclPatternType type : values()) {
            BY_CODE[type.code] = type;
        }
    }

    private final byte code;

    AclPatternType(int code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    /** The pattern type with this wire code, or {@link #UNKNOWN}. */
    public static AclPatternType fromCode(byte code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : UNKNOWN;
    }
}
