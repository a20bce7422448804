package io.tributary.systemtests.cluster;

import io.tributary.systemtests.kafka.KafkaTarget;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;

/**
 * A three-broker Kafka cluster whose processes the test can stop and start: the 3-node Apache Kafka
 * reference ({@link ApacheKafkaClusterTarget}) or a Tributary cluster of three brokers and three
 * coordinators ({@link TributaryClusterTarget}). Processes are named as {@code bin/tributary} names
 * them: {@code broker-<id>} (the brokers have ids 0, 1 and 2 on both), and on Tributary also {@code
 * coordinator-<i>}. {@link #brokerPorts()} lists the running brokers, {@link #stoppedBrokers()} the
 * killed ones; {@link #bootstrapServers()} names all three.
 */
public interface ClusterTarget extends KafkaTarget {

    /** Every broker's id, running or not. */
    Set<Integer> brokerIds();

    /**
     * The process whose Kafka listener is {@code port} on 127.0.0.1: {@code broker-<id>}, or on
     * Tributary {@code coordinator-<i>} (the group coordinator is the coordinators' Raft leader).
     *
     * @throws AssertionError if no process of this cluster listens there
     */
    String processAt(int port);

    /**
     * The process that coordinates {@code group} now: on Kafka the broker that FindCoordinator names
     * (the leader of the group's {@code __consumer_offsets} partition); on Tributary the
     * coordinators' Raft leader ({@code coordinator-<i>}), which every broker forwards group
     * requests to (FindCoordinator names the broker asked, a forwarder).
     */
    String groupCoordinator(Admin admin, String group) throws Exception;

    /** SIGKILL to the process, by its PID; returns once it is gone. */
    void kill(String process);

    /** Starts a killed process again on its ports and data; returns once it is up. */
    void start(String process);

    /** The killed processes not started again, by name. */
    Set<String> stoppedProcesses();

    /** The name of broker {@code id}'s process. */
    static String broker(int id) {
        return "broker-" + id;
    }
}
