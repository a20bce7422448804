/**
 * Transactions as one partition's log sees them (issue 18, the brokers' part, in progress): the
 * open transactions and the last stable offset ({@link io.tributary.broker.log.txn.OngoingTransactions})
 * and the aborted transaction a {@code read_committed} fetch answers ({@link
 * io.tributary.broker.log.txn.AbortedTransaction}; kept by the index store's {@code
 * io.tributary.broker.log.index.AbortedTxnIndex}). Plain Java, fed in log order by the partition
 * log; not wired into it yet: the partition log still refuses transactional batches until the
 * markers, the LSO-bounded fetch and the recovery of this state land together.
 */
package io.tributary.broker.log.txn;
