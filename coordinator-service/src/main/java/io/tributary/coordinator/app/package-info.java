/**
 * The coordinator's Spring edge: the application, its configuration records, and the beans that
 * wire the plain-Java core (metadata state machine, placement, groups) to Raft, the control plane,
 * the Kafka-protocol listener and actuator.
 */
package io.tributary.coordinator.app;
