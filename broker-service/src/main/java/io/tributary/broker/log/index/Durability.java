package io.tributary.broker.log.index;

/** Whether a partition-state write waits for the RocksDB WAL to reach the device. */
public enum Durability {
    /** fsync the WAL before returning: survives power loss. */
    SYNC,
    /** Write the WAL to the OS only: survives a process crash, not power loss. */
    NO_SYNC
}
