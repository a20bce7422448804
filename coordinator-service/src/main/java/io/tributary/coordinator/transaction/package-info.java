/**
 * The transaction coordinator (Kafka's transactions, KIP-98): transactional ids, their producer ids
 * and epochs, the transaction each has open, and the commit and abort markers that end it. Plain
 * Java, no Spring; the Kafka handlers and the Raft-backed store are wired around it.
 *
 * <h2>The classes</h2>
 *
 * <ul>
 *   <li>{@link io.tributary.coordinator.transaction.TransactionRecord}: what is replicated for one
 *       transactional id (Kafka's transaction log value, with a revision for compare-and-set writes),
 *       in a {@link io.tributary.coordinator.transaction.TransactionState}.
 *   <li>{@link io.tributary.coordinator.transaction.TransactionTransitions}: the decisions, as pure
 *       functions of the stored record, the request and the time.
 *   <li>{@link io.tributary.coordinator.transaction.TransactionCoordinator}: stores each decision
 *       before it answers, has markers written until every partition acknowledged, completes the
 *       transaction, aborts the timed-out ones, forgets expired ids.
 *   <li>{@link io.tributary.coordinator.transaction.TransactionStore} (with its producer id source)
 *       and {@link io.tributary.coordinator.transaction.MarkerChannel}: what it needs from around it.
 * </ul>
 *
 * <h2>The flow of one transaction</h2>
 *
 * <pre>
 *  InitProducerId(txn id)  -- store Empty, epoch bumped --&gt; producer id and epoch
 *  AddPartitionsToTxn / AddOffsetsToTxn -- store Ongoing + partitions / groups
 *  (the producer writes transactional batches to the partitions' leaders)
 *  EndTxn(commit|abort)    -- store PrepareCommit|PrepareAbort --&gt; answered
 *       markers to every partition's leader (retried until each acknowledged)
 *       -- store CompleteCommit|CompleteAbort
 * </pre>
 *
 * <p>Every arrow that says "store" is a write to the coordinators' Raft log before anything is
 * answered, so a transaction's outcome is decided once and a new leader finishes what it finds
 * being ended.
 */
package io.tributary.coordinator.transaction;
