/**
 * Named Kafka listeners from settings with Kafka's names ({@code listeners}, {@code
 * advertised.listeners}, {@code listener.security.protocol.map}, {@code ssl.*}, {@code sasl.*},
 * {@code listener.name.<name>.*}): {@link io.tributary.common.listeners.KafkaListenersConfig} reads
 * them into one {@link io.tributary.common.listeners.ListenerSpec} per listener, and {@link
 * io.tributary.common.listeners.ListenerSecurities} turns a spec into the {@link
 * io.tributary.common.protocol.ListenerSecurity} a {@link
 * io.tributary.common.protocol.KafkaProtocolServer} runs with. Invariants: listener names are
 * unique and upper case; a listener's protocol always comes from the protocol map; every key is
 * known or startup fails naming it. Plain Java, no Spring: each service binds the keys under its
 * own prefix and hands them over as a map.
 */
package io.tributary.common.listeners;
