/**
 * The fault-injection suite: a workload of idempotent acks=all producers and consumers whose every
 * operation is recorded to a history file ({@link io.tributary.systemtests.chaos.HistoryWriter}), a
 * checker over that history ({@link io.tributary.systemtests.chaos.HistoryChecker}) and the
 * scenarios that run it against a {@code bin/tributary} cluster while faults are injected. See
 * {@code docs/reliability.md}.
 */
package io.tributary.systemtests.chaos;
