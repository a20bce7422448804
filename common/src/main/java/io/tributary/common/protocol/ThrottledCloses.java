package io.tributary.common.protocol;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connections a listener refused for their IP's connection rate ({@link ConnectionAdmission}),
 * held open and unread until their throttle time has passed, then closed, as Kafka's acceptor does
 * with a throttled connection (a client that retries at once is slowed down rather than answered
 * with a fast close). At most {@code maxHeld} are held; past that a refused connection is closed
 * at once. One daemon thread, started with the first held connection, closes them when due.
 *
 * <p>Thread-safety: thread-safe.
 */
final class ThrottledCloses implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ThrottledCloses.class);

    private record Held(SocketChannel socket, long dueNanos) implements Delayed {
        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(dueNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(dueNanos, ((Held) other).dueNanos);
        }
    }

    private final String name;
    private final int maxHeld;
    private final ConnectionAdmission admission;
    private final ProtocolMetrics metrics;
    private final DelayQueue<Held> held = new DelayQueue<>();
    private Thread closer;
    private volatile boolean closed;

    /**
     * @param name the listener's name, for the closer thread's
     * @param maxHeld the most connections held at once (the listener's {@code maxConnections})
     * @param admission which connections are refused, and for how long
     */
    ThrottledCloses(String name, int maxHeld, ConnectionAdmission admission, ProtocolMetrics metrics) {
        this.name = name;
        this.maxHeld = maxHeld;
        this.admission = admission;
        this.metrics = metrics;
    }

    /**
     * Asks {@link ConnectionAdmission} about a connection just accepted: true when it is refused
     * (and then held, or closed when its address cannot be read), false when it is to be served.
     */
    boolean refused(SocketChannel socket) {
        long throttleMs;
        try {
            throttleMs = admission.throttleMs(((InetSocketAddress) socket.getRemoteAddress()).getAddress());
        } catch (IOException e) {
            closeQuietly(socket);
            return true;
        }
        if (throttleMs <= 0) {
            return false;
        }
        metrics.connectionThrottled(throttleMs);
        hold(socket, throttleMs);
        return true;
    }

    /** Holds {@code socket} for {@code throttleMs}, then closes it (at once when full or closed). */
    synchronized void hold(SocketChannel socket, long throttleMs) {
        if (closed || held.size() >= maxHeld) {
            closeQuietly(socket);
            return;
        }
        held.add(new Held(socket, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(throttleMs)));
        if (closer == null) {
            closer = Thread.ofPlatform()
                    .name(name + "-throttled-closes")
                    .daemon(true)
                    .start(this::closeWhenDue);
        }
    }

    /** How many connections are held now. */
    int heldCount() {
        return held.size();
    }

    private void closeWhenDue() {
        while (!closed) {
            try {
                closeQuietly(held.take().socket());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Closes every held connection and stops the closer. */
    @Override
    public synchronized void close() {
        closed = true;
        if (closer != null) {
            closer.interrupt();
        }
        for (Held h : held) {
            closeQuietly(h.socket());
        }
        held.clear();
    }

    private static void closeQuietly(SocketChannel socket) {
        try {
            socket.close();
        } catch (IOException e) {
            log.debug("Ignoring a failure to close a throttled connection: {}", e.toString());
        }
    }
}
