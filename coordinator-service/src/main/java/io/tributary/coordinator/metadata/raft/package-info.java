/**
 * The metadata state machine on Apache Ratis: {@link
 * io.tributary.coordinator.metadata.raft.MetadataStateMachine} applies committed commands to a
 * {@link io.tributary.coordinator.metadata.MetadataImage} and snapshots it; {@link
 * io.tributary.coordinator.metadata.raft.MetadataRaftNode} runs one voter on a {@link
 * io.tributary.coordinator.metadata.raft.RaftTransport} (plaintext Netty, or gRPC with mutual TLS); {@link
 * io.tributary.coordinator.metadata.raft.MetadataClient} submits commands (to this process's voter
 * in-process while it leads) and reads images. Core:
 * plain Java (Ratis is not Spring), no Spring (an architecture test enforces it).
 *
 * <pre>
 *  MetadataClient ──in-process (this voter leads) or the transport──► leader: startTransaction
 *                                     (validate; reject without appending)
 *                                     │ append, replicate, commit
 *                                     ▼
 *                 every voter: applyTransaction ──► MetadataImage.apply ──► reply (version | error)
 *                                     │ every snapshotThresholdEntries
 *                                     ▼
 *                 snapshot.&lt;term&gt;_&lt;index&gt; (ImageCodec, CRC32C) + .md5; restart loads it and
 *                 replays only the later log entries
 * </pre>
 *
 * <p>Invariants: a voter's image is a function of the log prefix it has applied (apply is
 * deterministic and the only writer); the image and the term-index it reflects change together
 * (one volatile reference); an entry that does not decode stops the voter rather than being skipped.
 */
package io.tributary.coordinator.metadata.raft;
