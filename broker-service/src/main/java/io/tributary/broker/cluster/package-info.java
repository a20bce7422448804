/**
 * The broker's view of the cluster and its link to the coordinators, in plain Java (no Spring).
 *
 * <p>{@link io.tributary.broker.cluster.ClusterImage} is an immutable snapshot of the metadata the
 * coordinators commit (brokers, topics, partitions with leaders, epochs and ISR), replaced whole
 * on every change; {@link io.tributary.broker.cluster.ControlPlane} is the coordinator's HTTP/JSON
 * control plane as the broker calls it (see {@code docs/control-plane.md}); {@link
 * io.tributary.broker.cluster.MetadataView} is what request handlers read and wait on, and {@link
 * io.tributary.broker.cluster.MetadataListener} is how the replica manager learns of changes.
 *
 * <p>{@link io.tributary.broker.cluster.HttpControlPlane} implements the control plane over
 * HTTP/JSON (leader redirects, retries, problem types to {@link
 * io.tributary.broker.cluster.ControlPlaneException.Kind}); {@link
 * io.tributary.broker.cluster.MetadataFollower} implements the view: it registers this broker's
 * incarnation, heartbeats, follows the metadata long poll, and decides whether the broker is active
 * (registered, unfenced, and heartbeating within its session timeout).
 *
 * <p>Invariants: an image only moves to a higher version (except when the coordinators' state was
 * replaced, and then whole); listeners see images one at a time, in version order; a broker that
 * cannot heartbeat stops counting itself active after the session timeout, fenced or not.
 */
package io.tributary.broker.cluster;
