/**
 * Cluster metadata as an Apache Ratis state machine: brokers, topics, partitions, leaders, ISR and
 * epochs, changed only by commands applied in log order. Core: plain Java, no Spring (an
 * architecture test enforces it).
 */
package io.tributary.coordinator.metadata;
