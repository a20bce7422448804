package io.tributary.common.protocol;

import io.tributary.common.security.acl.AclAuthorizer;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ACL checks a handler makes on the topics, groups and keys a request names ({@link
 * io.tributary.common.security.acl.ApiAccess}'s per-item checks), for the caller of one request:
 * with no authorizer ({@link #OPEN}) everything is allowed and every authorized-operations field
 * lists every operation, as on a Kafka broker without {@code authorizer.class.name}; otherwise the
 * ACLs in force decide ({@link AclAuthorizer}, read on every call, so a new set takes effect on the
 * next check).
 *
 * <p>Thread-safety: immutable; safe for concurrent use when {@code acls} is.
 */
public final class AccessControl {

    /** No authorizer: every check allows. */
    public static final AccessControl OPEN = new AccessControl(null);

    private static final Logger auditLog = LoggerFactory.getLogger(RequestAuthorizer.AUDIT_LOGGER);

    private final Supplier<AclAuthorizer> acls;

    private AccessControl(Supplier<AclAuthorizer> acls) {
        this.acls = acls;
    }

    /** Checks against {@code acls}, the ACLs in force. */
    public static AccessControl of(Supplier<AclAuthorizer> acls) {
        return new AccessControl(Objects.requireNonNull(acls, "acls"));
    }

    /** Whether an authorizer decides (false for {@link #OPEN}). */
    public boolean enabled() {
        return acls != null;
    }

    /**
     * Whether the caller of a request on {@code connection} may perform {@code operation} on the
     * resource; a refusal is written to the audit log ({@value RequestAuthorizer#AUDIT_LOGGER}).
     */
    public boolean allowed(ConnectionInfo connection, AclOperation operation, AclResourceType type, String name) {
        if (acls == null) {
            return true;
        }
        boolean allowed = allowedQuietly(connection, operation, type, name);
        if (!allowed) {
            audit(connection, null, operation, type, name);
        }
        return allowed;
    }

    /** As {@link #allowed}, without an audit line for a refusal (a probe or a filter expects some). */
    public boolean allowedQuietly(
            ConnectionInfo connection, AclOperation operation, AclResourceType type, String name) {
        return acls == null || acls.get().allowed(connection.principal(), host(connection), operation, type, name);
    }

    /**
     * Kafka's authorized-operations bit field of the resource for the caller: bit {@code code} set
     * for each operation of {@link AclResourceType#supportedOperations} allowed (all of them
     * without an authorizer).
     */
    public int authorizedOperations(ConnectionInfo connection, AclResourceType type, String name) {
        if (acls == null) {
            int bits = 0;
            for (AclOperation operation : type.supportedOperations()) {
                bits |= 1 << operation.code();
            }
            return bits;
        }
        return acls.get().authorizedOperations(connection.principal(), host(connection), type, name);
    }

    /**
     * The cluster's authorized-operations field for the caller, as Kafka fills it in Metadata (v8 to
     * v10) and DescribeCluster: 0 without DESCRIBE on the cluster, else {@link #authorizedOperations}.
     */
    public int clusterAuthorizedOperations(ConnectionInfo connection) {
        if (!allowedQuietly(connection, AclOperation.DESCRIBE, AclResourceType.CLUSTER, AclResourceType.CLUSTER_NAME)) {
            return 0;
        }
        return authorizedOperations(connection, AclResourceType.CLUSTER, AclResourceType.CLUSTER_NAME);
    }

    /**
     * Whether the caller may perform {@code operation} on some resource of {@code type} ({@link
     * AclAuthorizer#allowedOnAnyResource}, Kafka's {@code authorizeByResourceType}); a refusal is
     * audited with the resource name {@code *}.
     */
    public boolean allowedOnAnyResource(ConnectionInfo connection, AclOperation operation, AclResourceType type) {
        if (acls == null) {
            return true;
        }
        boolean allowed = acls.get().allowedOnAnyResource(connection.principal(), host(connection), operation, type);
        if (!allowed) {
            audit(connection, null, operation, type, "*");
        }
        return allowed;
    }

    /**
     * Writes a refusal to the audit log: who, from where, what on which resource, and the API when
     * the refusal answers a request as a whole ({@code api} null otherwise).
     */
    static void audit(
            ConnectionInfo connection, String api, AclOperation operation, AclResourceType type, String name) {
        auditLog.info(
                "denied: principal={} host={}{} operation={} resource={}:{}",
                connection.principal(),
                host(connection),
                api == null ? "" : " api=" + api,
                operation,
                type,
                name);
    }

    /** The client's address as ACL hosts name it. */
    static String host(ConnectionInfo connection) {
        return connection.remoteAddress().getAddress().getHostAddress();
    }
}
