/**
 * The coordinator's control plane: HTTP/JSON under {@code /internal/v1} for brokers (register,
 * heartbeat, alter partition, the metadata long poll) and for operators and brokers forwarding Kafka
 * admin requests (topics, configs, the cluster).
 *
 * <pre>
 *  broker / operator --HTTP--> any voter
 *                                 | write (or heartbeat) and not the leader: 307 to the leader's
 *                                 |   control-plane URL (tributary.coordinator.http-peers), or 503
 *                                 |   with Retry-After while no leader is known
 *                                 | write on the leader: validate, place (ReplicaPlacer), MetadataClient.submit
 *                                 | read (describe, metadata long poll): this voter's applied image
 *                                 v
 *  MetadataStateMachine --listener--> MetadataHistory (bounded deltas) --wakes--> parked long polls
 * </pre>
 *
 * <p>Invariants: every error is {@code application/problem+json} with a stable type
 * ({@link io.tributary.coordinator.api.ControlProblem}); a long poll parks on a condition, never
 * spins; every bound (body size, wait, history length) is a validated configuration value.
 */
package io.tributary.coordinator.api;
