package io.tributary.broker.api;

import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestAuthorizer;
import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclBindingFilter;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclPatternType;
import io.tributary.common.security.acl.AclPermission;
import io.tributary.common.security.acl.AclResourceType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the three ACL APIs share: their wire codes read into ACLs and filters (an unknown code reads
 * as UNKNOWN, which the checks refuse as Kafka does), the answer without an authorizer, and the audit
 * line of every ACL a request created or deleted ({@value RequestAuthorizer#AUDIT_LOGGER}, INFO:
 * principal, host, change, ACL).
 */
final class AclWire {

    /** Kafka's message when no authorizer is configured (DescribeAcls; Create/DeleteAcls say less). */
    static final String NO_AUTHORIZER = "No Authorizer is configured on the broker";

    /** Kafka's message in CreateAcls' and DeleteAcls' {@code SECURITY_DISABLED} answers. */
    static final String NO_AUTHORIZER_CONFIGURED = "No Authorizer is configured.";

    private static final Logger audit = LoggerFactory.getLogger(RequestAuthorizer.AUDIT_LOGGER);

    private AclWire() {}

    /** The ACL a creation names: {@link #filter}'s fields, as they are (the checks refuse what is not one). */
    static AclBinding binding(AclBindingFilter f) {
        return new AclBinding(
                f.resourceType(),
                f.resourceName(),
                f.patternType(),
                f.principal(),
                f.host(),
                f.operation(),
                f.permission());
    }

    static AclBindingFilter filter(
            byte type, String name, byte pattern, String principal, String host, byte operation, byte permission) {
        return new AclBindingFilter(
                AclResourceType.fromCode(type),
                name,
                AclPatternType.fromCode(pattern),
                principal,
                host,
                AclOperation.fromCode(operation),
                AclPermission.fromCode(permission));
    }

    /** The audit line of one ACL change made by {@code request}'s caller. */
    static void auditChange(KafkaRequest request, String change, AclBinding acl) {
        audit.info(
                "{}: principal={} host={} acl={}",
                change,
                request.connection().principal(),
                request.connection().remoteAddress().getAddress().getHostAddress(),
                acl);
    }
}
