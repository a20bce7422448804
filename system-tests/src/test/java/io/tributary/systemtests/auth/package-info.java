/**
 * Authenticated Kafka listeners, compared with Apache Kafka configured the same way: each test
 * class starts its own secured targets once (an Apache Kafka broker and a Tributary cluster with a
 * SASL_SSL listener, TLS material from a CA made by the test) and runs kafka-clients scenarios, or
 * raw requests ({@code SecureRawKafka}), on both; Tributary's outcome must equal Kafka's line for
 * line ({@code SecureDifferential}). {@code ApiAuthorizationTableIT} runs the table of every API's
 * authorization ({@code ApiAuthorizationTable}). Failsafe runs these classes beside the classes of
 * package {@code kafka} (see {@code kafka.OnSharedTargets}).
 */
package io.tributary.systemtests.auth;
