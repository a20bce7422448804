/**
 * Partition log storage: segment files of Kafka record batches, the RocksDB offset and time index,
 * recovery and retention. Core: plain Java, no Spring (an architecture test enforces it). Its clock,
 * limits and directories come through constructors.
 */
package io.tributary.broker.log;
