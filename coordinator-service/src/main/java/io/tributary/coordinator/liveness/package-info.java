/**
 * Broker liveness on the metadata leader: heartbeats are remembered in memory (never a Raft write
 * each); what they imply becomes metadata commands (fence, unfence, preferred leader election) that
 * the caller submits through Raft. Core: plain Java, no Spring (an architecture test enforces it);
 * time comes from an injected {@link java.time.InstantSource}.
 *
 * <pre>
 *  broker ──heartbeat──► BrokerLiveness.heartbeat ──► UnfenceBroker (a fenced broker is back)
 *  broker stopping ────► BrokerLiveness.shutdown ───► FenceBroker (controlled shutdown: at once)
 *  leader's timer ─────► BrokerLiveness.tick ───────► FenceBroker (session timeout missed)
 *                                                 ├──► ElectLeaders PREFERRED (back for the delay)
 *                                                 └──► ElectLeaders UNCLEAN (offline, topic allows it)
 * </pre>
 *
 * <p>Invariants: only the Raft leader runs it; a new leader starts from nothing and gives every
 * broker a full session timeout; commands name the broker incarnation they were decided for, so a
 * decision about an old incarnation is refused by the state machine as stale.
 */
package io.tributary.coordinator.liveness;
