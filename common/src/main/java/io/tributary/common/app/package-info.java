/**
 * Spring wiring for what {@code common} shares: the Kafka-protocol listener as a lifecycle bean
 * with validated configuration ({@code tributary.kafka.*}) and a health indicator that readiness
 * includes. Services import {@link io.tributary.common.app.KafkaListenerConfiguration} and declare
 * their {@link io.tributary.common.protocol.RequestHandler}s as beans.
 */
package io.tributary.common.app;
