/**
 * Cluster metadata as a replicated state machine: brokers, topics, partitions, leaders, ISR and
 * epochs, changed only by {@link io.tributary.coordinator.metadata.MetadataCommand}s applied in Raft
 * log order. The same log and image keep the consumer groups' durable state: committed offsets
 * ({@link io.tributary.coordinator.metadata.CommittedOffsets}), classic groups' last completed
 * generations ({@link io.tributary.coordinator.metadata.ClassicGroups}) and KIP-848 consumer groups'
 * members, epochs and assignments ({@link io.tributary.coordinator.metadata.ConsumerGroups}); and the
 * users' SCRAM credentials ({@link io.tributary.coordinator.metadata.ScramCredentials}), the ACLs
 * ({@link io.tributary.coordinator.metadata.AclSet}) and the client quotas ({@link
 * io.tributary.coordinator.metadata.ClientQuotas}, encoded by {@code QuotaCodec}), which brokers hold
 * too. Core: plain Java, no Spring
 * (an architecture test enforces it).
 *
 * <pre>
 *  client request ──► CommandValidator (leader: limits + dry run on the latest image)
 *                        │ CommandCodec bytes
 *                        ▼
 *                    Raft log (Ratis) ──► every voter: MetadataImage.apply(command) ──► next image
 *                                                                      │
 *                                                    ImageCodec bytes ─┴─► snapshot file
 * </pre>
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>{@link io.tributary.coordinator.metadata.MetadataImage#apply} is a pure function: no clock, no
 *       randomness, no placement; everything it needs is in the image or the command. Voters that
 *       apply the same log hold byte-identical images ({@link io.tributary.coordinator.metadata.ImageCodec}).
 *   <li>Every change bumps the metadata version by one, except changes to committed offsets,
 *       classic and consumer groups (brokers watch the version and hold none) and the SCRAM bootstrap
 *       mark alone; a command that changes nothing does not.
 *   <li>No password and no salted password is ever in a command or an image: SCRAM credentials are
 *       salts, stored keys, server keys and iterations.
 *   <li>Per partition: the leader is in the ISR or is -1 (offline); the ISR is a non-empty subset of
 *       the replicas; the leader epoch grows on every leader change and the partition epoch on every
 *       leader or ISR change; neither ever goes back.
 *   <li>A leader is always a live (unfenced) broker when elected; a leader from outside the ISR only
 *       for a topic with {@code unclean.leader.election.enable=true}.
 *   <li>The next producer id only grows: a producer id is handed to one broker at most once.
 *   <li>An invalid command throws a typed {@link io.tributary.coordinator.metadata.MetadataException}
 *       and changes nothing.
 * </ul>
 */
package io.tributary.coordinator.metadata;
