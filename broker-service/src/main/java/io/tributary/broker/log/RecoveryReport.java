package io.tributary.broker.log;

/**
 * What opening a partition log had to do.
 *
 * @param cleanShutdown whether the log had been closed cleanly (and so was not scanned)
 * @param bytesScanned bytes of batches validated from the recovery point on
 * @param bytesTruncated bytes cut off after the first bad byte (torn or corrupt tail)
 * @param segmentsDeleted whole segments deleted because they followed the first bad byte
 */
public record RecoveryReport(boolean cleanShutdown, long bytesScanned, long bytesTruncated, int segmentsDeleted) {}
