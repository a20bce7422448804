/**
 * Differential tests that need several brokers, against a three-broker Apache Kafka cluster (the
 * reference: three broker JVMs and one KRaft controller, {@code KafkaCluster} from common's
 * test-jar) and a Tributary cluster of three brokers and three coordinators ({@code bin/tributary
 * up --coordinators 3 --brokers 3}): follower and leader answers, ISR changes, leader movement,
 * {@code min.insync.replicas} refusals, group coordinator failover.
 *
 * <pre>
 *   MultiBrokerIT ──▶ ClusterTargets ──▶ ApacheKafkaClusterTarget ──▶ KafkaCluster (4 JVMs)
 *        │                          └──▶ TributaryClusterTarget  ──▶ bin/tributary (7 JVMs)
 *        └─ per scenario: run on Kafka ▶ Transcript, run on Tributary ▶ Transcript, compare
 * </pre>
 *
 * <p>Invariants: a scenario names brokers only by their role in its partition; it leaves every
 * process running when it ends (the comparison restarts what it stopped, also after a failure);
 * the Kafka reference must be up, or the class fails. Failsafe runs {@code MultiBrokerIT} beside the
 * classes of package {@code kafka} and their single-broker targets (see {@code
 * kafka.OnSharedTargets}).
 */
package io.tributary.systemtests.cluster;
