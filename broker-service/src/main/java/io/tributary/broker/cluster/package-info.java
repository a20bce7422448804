/**
 * The broker's view of the cluster and its link to the coordinators, in plain Java (no Spring).
 *
 * <p>{@link io.tributary.broker.cluster.ClusterImage} is an immutable snapshot of the metadata the
 * coordinators commit (brokers, topics, partitions with leaders, epochs and ISR), replaced whole
 * on every change; {@link io.tributary.broker.cluster.ControlPlane} is the coordinator's HTTP/JSON
 * control plane as the broker calls it (see {@code docs/control-plane.md}); {@link
 * io.tributary.broker.cluster.MetadataView} is what request handlers read and wait on, and {@link
 * io.tributary.broker.cluster.MetadataListener} is how the replica manager learns of changes.
 */
package io.tributary.broker.cluster;
