package io.tributary.common.security.acl;

/** Whether an ACL allows or denies, with its Kafka wire code ({@code PermissionType}). */
public enum AclPermission {
    /** A code this broker does not know; never stored. */
    UNKNOWN(0),
    /** In a filter: either. Never stored. */
    ANY(1),
    DENY(2),
    ALLOW(3);

    private static final AclPermission[] BY_CODE = new AclPermission[4];

    static {
        for (AclPermission permission : values()) {
            BY_CODE[permission.code] = permission;
        }
    }

    private final byte code;

    AclPermission(int code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    /** The permission with this wire code, or {@link #UNKNOWN}. */
    public static AclPermission fromCode(byte code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : UNKNOWN;
    }
}
