/**
 * The broker's RocksDB store: the sparse offset index, the time index and per-partition state
 * (log start offset, recovery point, leader-epoch cache, clean-shutdown marker) of every partition
 * replica, in one RocksDB instance with three column families.
 *
 * <p>Invariants: one partition's keys share a 20-byte prefix and are contiguous; within a
 * partition, offset-index keys are batch base offsets of batches that exist in the log below its
 * recovery point or its log end; time-index keys and values both increase, and the values are base
 * offsets of batches on disk; the index is derived data, rebuilt from the log from the recovery
 * point on after a crash, so its writes skip the WAL.
 * Byte layouts: {@link io.tributary.broker.log.index.PartitionIndex} and {@link
 * io.tributary.broker.log.index.PartitionState}.
 */
package io.tributary.broker.log.index;
