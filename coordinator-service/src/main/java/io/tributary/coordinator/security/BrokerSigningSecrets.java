package io.tributary.coordinator.security;

import io.tributary.common.security.internal.ControlPlaneSignature.Caller;
import io.tributary.common.security.internal.ControlPlaneSignature.SecretGeneration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which cluster secret each broker last signed a control-plane call with, as this coordinator saw
 * it: the current one or, during a rotation, the previous one ({@link SecretGeneration}). {@link
 * InternalCredentials} writes each broker's internal SCRAM credential from the secret the broker
 * uses, so that a broker not yet restarted with the new secret keeps logging in on its peers.
 *
 * <p>Only calls whose signature was verified are recorded, so the map holds at most one entry per
 * broker id whose key the cluster's secrets derive; an entry is replaced, never added twice.
 * In memory only: a coordinator that just became leader knows nothing until the brokers' next
 * heartbeats (every broker heartbeats the leader each heartbeat interval), and {@link
 * InternalCredentials} then keeps a credential made from either secret.
 *
 * <p>Thread-safe: the control plane's request threads record, the credentials loop reads.
 */
public final class BrokerSigningSecrets {

    private final Map<Integer, SecretGeneration> lastUsed = new ConcurrentHashMap<>();

    /** Records that {@code caller} signed a call that was verified. */
    public void signed(Caller caller) {
        lastUsed.put(caller.brokerId(), caller.secret());
    }

    /** The secret broker {@code brokerId} last signed with; empty when it has not been seen. */
    public Optional<SecretGeneration> lastUsedBy(int brokerId) {
        return Optional.ofNullable(lastUsed.get(brokerId));
    }
}
