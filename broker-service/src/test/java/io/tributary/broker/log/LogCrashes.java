package io.tributary.broker.log;

/** Lets tests outside this package leave a log as a process crash would (no flush, no clean marker). */
public final class LogCrashes {

    private LogCrashes() {}

    /** Releases {@code log}'s files without flushing or recording a clean shutdown. */
    public static void crash(PartitionLog log) {
        log.closeAsIfCrashed();
    }
}
