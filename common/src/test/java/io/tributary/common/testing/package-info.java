/**
 * Test helpers the services' and system tests share through common's test-jar: the architecture
 * rules, a real Apache Kafka broker as a child JVM ({@link io.tributary.common.testing.KafkaBroker}),
 * raw Kafka frames, the promtool check, and {@link io.tributary.common.testing.BackgroundFailures},
 * where background work in a test reports its failures so that none vanishes with its thread.
 */
package io.tributary.common.testing;
