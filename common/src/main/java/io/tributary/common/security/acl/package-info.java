/**
 * Kafka's ACL model, as brokers and coordinators both need it: what an ACL binds ({@link
 * io.tributary.common.security.acl.AclBinding}: a resource pattern, a principal, a host, an
 * operation, allow or deny), the filters that CreateAcls, DescribeAcls and DeleteAcls take ({@link
 * io.tributary.common.security.acl.AclBindingFilter}), and the decision for one request ({@link
 * io.tributary.common.security.acl.AclAuthorizer}): super users first, then deny wins over allow, an
 * ALLOW of READ, WRITE, DELETE or ALTER also allows DESCRIBE, an ALLOW of ALTER_CONFIGS also allows
 * DESCRIBE_CONFIGS, and a resource no ACL names follows {@code allow.everyone.if.no.acl.found}. The
 * semantics are Apache Kafka 4.4's {@code StandardAuthorizer}'s; the numeric codes are the wire
 * protocol's. {@link io.tributary.common.security.acl.ApiAccess} is the table of what each Kafka API
 * requires of its caller, in Kafka's order and with Kafka's answers to a refusal. Immutable values;
 * plain Java, no Spring.
 */
package io.tributary.common.security.acl;
