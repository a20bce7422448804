/**
 * The broker's Spring edge: the application, its configuration records, and the beans that wire
 * the plain-Java core (the log, replication) to the Kafka-protocol listener and to actuator.
 */
package io.tributary.broker.app;
