package io.tributary.common.protocol;

import java.net.InetAddress;

/**
 * Whether a listener takes a connection it has just accepted, asked once per connection by the
 * acceptor (a broker's {@code connection_creation_rate} quotas per IP, KIP-612). A connection it
 * refuses is held open, unread, for the time it answers, then closed ({@link ThrottledCloses}), as
 * Kafka delays closing a throttled connection rather than accepting it.
 *
 * <p>Thread-safety: called from the listener's acceptor thread only, but one instance may serve
 * several listeners.
 */
@FunctionalInterface
public interface ConnectionAdmission {

    /**
     * Records a connection from {@code address}: 0 when it is taken, else how long (ms) to hold it
     * before closing it; a refused connection is not counted against the address's rate.
     */
    long throttleMs(InetAddress address);

    /** Every connection taken. */
    ConnectionAdmission OPEN = address -> 0;
}
