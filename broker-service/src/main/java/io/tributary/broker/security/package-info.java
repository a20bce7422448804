/**
 * Kafka-side security on the broker, in plain Java (no Spring): {@link
 * io.tributary.broker.security.ClusterCredentials}, the cluster's SCRAM credentials (the
 * coordinators' replicated store, learnt with the metadata image) as the {@link
 * io.tributary.common.security.sasl.CredentialLookup} a SASL listener authenticates against.
 *
 * <p>Invariants: no password or salted password is ever held or logged here, only the stored
 * credentials (salt, stored key, server key, iterations); a lookup reads one image's credentials.
 */
package io.tributary.broker.security;
