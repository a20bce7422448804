/**
 * Kafka clients against a black box, differentially: each test runs one client scenario on every
 * enabled target ({@link io.tributary.systemtests.kafka.KafkaTargets}: a real Apache Kafka broker,
 * the reference, and Tributary clusters from {@code bin/tributary}, healthy and with a broker down)
 * and requires every target's observed outcome to equal Kafka's ({@link
 * io.tributary.systemtests.kafka.Differential}). A run without the Kafka target is refused. See the
 * system-tests README for what each test compares.
 */
package io.tributary.systemtests.kafka;
