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
 * the Kafka reference must be up, or the class fails. The package sorts before {@code kafka}, so
 * these clusters are stopped before the single-broker targets of that package start.
 */
package io.tributary.systemtests.cluster;
