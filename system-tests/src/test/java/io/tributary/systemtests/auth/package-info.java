/**
 * Authenticated Kafka listeners, compared with Apache Kafka configured the same way: each test
 * class starts its own secured targets once (an Apache Kafka broker and a Tributary cluster with a
 * SASL_SSL listener, TLS material from a CA made by the test) and runs kafka-clients scenarios on
 * both; Tributary's outcome must equal Kafka's line for line. Failsafe runs these classes beside
 * the classes of package {@code kafka} (see {@code kafka.OnSharedTargets}).
 */
package io.tributary.systemtests.auth;
