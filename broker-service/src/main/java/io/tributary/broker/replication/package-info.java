/**
 * Replication: the replicas this broker holds, their roles and epochs, and the high watermark.
 * Core: plain Java, no Spring (an architecture test enforces it).
 *
 * <pre>
 *  metadata follower --onImage--> ReplicaManager --open/update/close--> Partition (one per replica)
 *                                     |                                   |  log: PartitionLog
 *                                     +-- deleted topics: rename, then    |  role, leader epoch, ISR
 *                                         delete on the delete executor   |  high watermark, change signal
 *  Produce/Fetch handlers ----------------------------------------------> appendAsLeader, recordFollowerFetch
 *
 *  ReplicaManager --replicasChanged--> Replication --> ReplicaFetcherManager --> ReplicaFetcher (one per
 *                                          |                                     source broker, a virtual
 *                                          |                                     thread, Fetch / OffsetForLeaderEpoch)
 *  Partition --followerMayJoinIsr-------> +--> IsrManager --alterPartition--> coordinators
 *                                                   (every isr-check-interval: shrink)
 * </pre>
 *
 * <h2>Invariants</h2>
 *
 * <ul>
 *   <li>A replica appends as leader only in the epoch it leads in: appends and leadership changes
 *       exclude each other ({@link io.tributary.broker.replication.Partition}).
 *   <li>The high watermark of a leader is at most the smallest log end offset in the ISR and never
 *       goes back.
 *   <li>Waiters (long-poll fetches, acks=all) park on a future completed by the next change; nothing
 *       polls.
 *   <li>A directory holding another topic id than the image's is never served.
 *   <li>An ISR change is applied only once the coordinators committed it; at most one per partition
 *       is in flight, and meanwhile the high watermark counts the committed and proposed ISR.
 *   <li>A follower appends only in the leader epoch it fetches for, and truncates its divergent
 *       suffix (OffsetForLeaderEpoch, DivergingEpoch) before appending past it.
 * </ul>
 */
package io.tributary.broker.replication;
