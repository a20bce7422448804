/**
 * Helpers the services' tests share, in common's test-jar: the architecture rules, the promtool
 * check, a raw Kafka connection ({@code KafkaTestConnection}), real Apache Kafka to compare with
 * ({@code KafkaBroker}: one KRaft node; {@code KafkaCluster}: three brokers and a controller; both
 * made of {@code KafkaNode} child JVMs on {@code kafka-peer/target/kafka-libs}), {@link
 * io.tributary.common.testing.SimulationCoverage} (the faults a seeded simulation produced, with
 * minimums) and {@link io.tributary.common.testing.BackgroundFailures}, where background work in a
 * test reports its failures so that none vanishes with its thread.
 *
 * <p>Invariants: every process a helper starts binds 127.0.0.1 on ports that were free, keeps its
 * data in a temporary directory, and is signalled and stopped by its PID only, also from a JVM
 * shutdown hook.
 */
package io.tributary.common.testing;
