/**
 * Kafka-side security on the broker, in plain Java (no Spring): {@link
 * io.tributary.broker.security.ClusterCredentials}, the cluster's SCRAM credentials (the
 * coordinators' replicated store, learnt with the metadata image) as the {@link
 * io.tributary.common.security.sasl.CredentialLookup} a SASL listener authenticates against; and
 * {@link io.tributary.broker.security.ClusterAuthorizer}, the cluster's ACLs (learnt the same way)
 * as the {@link io.tributary.common.security.acl.AclAuthorizer} the broker's request checks read
 * when the authorizer is on.
 *
 * <p>Invariants: no password or salted password is ever held or logged here, only the stored
 * credentials (salt, stored key, server key, iterations); a lookup reads one image's credentials and
 * a check one image's ACLs.
 */
package io.tributary.broker.security;
