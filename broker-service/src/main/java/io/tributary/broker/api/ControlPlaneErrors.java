package io.tributary.broker.api;

import io.tributary.broker.cluster.ControlPlaneException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;

/**
 * How a refused or failed control-plane call becomes a Kafka error, with the coordinator's detail as
 * the error message ({@link ControlPlaneException#clientMessage()}: not the HTTP call behind it).
 *
 * <table>
 *   <caption>{@link ControlPlaneException.Kind} to Kafka error</caption>
 *   <tr><th>kind</th><th>Kafka error</th></tr>
 *   <tr><td>TOPIC_EXISTS</td><td>TOPIC_ALREADY_EXISTS</td></tr>
 *   <tr><td>UNKNOWN_TOPIC</td><td>UNKNOWN_TOPIC_OR_PARTITION</td></tr>
 *   <tr><td>UNKNOWN_BROKER</td><td>BROKER_NOT_AVAILABLE (this broker is not registered yet)</td></tr>
 *   <tr><td>INVALID_CONFIG</td><td>INVALID_CONFIG</td></tr>
 *   <tr><td>INVALID_REPLICATION_FACTOR</td><td>INVALID_REPLICATION_FACTOR</td></tr>
 *   <tr><td>INVALID_PARTITIONS</td><td>INVALID_PARTITIONS</td></tr>
 *   <tr><td>INVALID_REQUEST</td><td>INVALID_REQUEST</td></tr>
 *   <tr><td>STALE_EPOCH, UNAVAILABLE, NOT_COMMITTED</td><td>NOT_CONTROLLER</td></tr>
 * </table>
 *
 * <p>Why NOT_CONTROLLER for "the coordinators cannot answer now": it is retriable, and the
 * AdminClient handles it specially for CreateTopics, DeleteTopics and CreatePartitions: it refreshes
 * its metadata and sends the whole call again until its own timeout, which is what a client should
 * do while the coordinators elect a leader. REQUEST_TIMED_OUT, the other candidate, fails those
 * calls' futures at once. A NOT_COMMITTED write may have been applied: a retried CreateTopics then
 * gets TOPIC_ALREADY_EXISTS, as with Kafka's own controller failover.
 */
public final class ControlPlaneErrors {

    private ControlPlaneErrors() {}

    public static ApiError toApiError(ControlPlaneException e) {
        Errors error = switch (e.kind()) {
            case TOPIC_EXISTS -> Errors.TOPIC_ALREADY_EXISTS;
            case UNKNOWN_TOPIC -> Errors.UNKNOWN_TOPIC_OR_PARTITION;
            case UNKNOWN_BROKER -> Errors.BROKER_NOT_AVAILABLE;
            case INVALID_CONFIG -> Errors.INVALID_CONFIG;
            case INVALID_REPLICATION_FACTOR -> Errors.INVALID_REPLICATION_FACTOR;
            case INVALID_PARTITIONS -> Errors.INVALID_PARTITIONS;
            case INVALID_REQUEST -> Errors.INVALID_REQUEST;
            case STALE_EPOCH, UNAVAILABLE, NOT_COMMITTED -> Errors.NOT_CONTROLLER;
        };
        return new ApiError(error, e.clientMessage());
    }

    /** Kafka's error of a name the coordinators answered (an unknown name is UNKNOWN_SERVER_ERROR). */
    public static Errors named(String name) {
        for (Errors e : Errors.values()) {
            if (e.name().equals(name)) {
                return e;
            }
        }
        return Errors.UNKNOWN_SERVER_ERROR;
    }

    /** Whether the call may be retried as is (the coordinators were unreachable or could not commit). */
    public static boolean isRetriable(ControlPlaneException e) {
        return switch (e.kind()) {
            case STALE_EPOCH, UNAVAILABLE, NOT_COMMITTED -> true;
            default -> false;
        };
    }
}
