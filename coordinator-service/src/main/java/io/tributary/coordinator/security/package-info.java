/**
 * Kafka-side security on the coordinators: SCRAM credentials, ACLs and client quotas as cluster
 * metadata. Core: plain
 * Java, no Spring (an architecture test enforces it).
 *
 * <pre>
 *  AlterUserScramCredentials ──► any broker: keys derived from each salted password (ScramKeys)
 *                                   │ POST /internal/v1/scram-credentials (to the Raft leader)
 *                                   ▼
 *  leader: ScramAlterations.plan(image's credentials) ──► per-user results (Kafka's errors)
 *                                   │ the accepted ones: one AlterScramCredentials command
 *                                   ▼
 *  Raft log ──► every voter's MetadataImage.scramCredentials ──► metadata long poll ──► brokers
 *
 *  tributary.coordinator.security.bootstrap-scram-users ──► ScramBootstrap ──► one
 *      BootstrapScramCredentials command, applied once in the cluster's life
 *
 *  cluster secret + registered brokers ──► InternalCredentials (leader, every heartbeat interval)
 *      ──► AlterScramCredentials for tributary-coordinator and tributary-broker-<id> when missing
 *          or not made from the secret (during a rotation: from the secret each broker signs
 *          with, which the control plane's filter records in BrokerSigningSecrets)
 *
 *  Kafka listener (SASL, with the secret) ──► ImageCredentials ──► the image's credentials
 *
 *  AlterClientQuotas ──► any broker ──► POST /internal/v1/client-quotas ──► leader:
 *      QuotaChanges.plan(image's quotas) ──► per-entry results (Kafka's messages)
 *      ──► one AlterClientQuotas command (none with validate_only)
 * </pre>
 *
 * <p>The internal users' names are reserved ({@code ScramAlterations} refuses them): only the
 * leader's {@link io.tributary.coordinator.security.InternalCredentials} writes them.
 *
 * <p>Invariants: no password and no salted password is ever in a command, an image or a log line
 * (only salts, stored keys, server keys and iterations); every bound ({@link
 * io.tributary.coordinator.security.ScramRules}) is checked before a command is appended, never
 * while applying one.
 */
package io.tributary.coordinator.security;
