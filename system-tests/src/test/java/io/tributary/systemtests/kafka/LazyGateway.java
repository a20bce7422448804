package io.tributary.systemtests.kafka;

import java.util.function.Supplier;

/**
 * The gateway in front of an Apache Kafka reference, started on first use (only the gateway tests
 * need one): a {@link GatewayProcess} on the reference's bootstrap address, with its log in {@code
 * target/<logName>}, stopped by PID on {@link #close()}. What gives a Kafka target the gateway that
 * {@code bin/tributary up} gives a Tributary one.
 *
 * <p>Thread-safe: every method is synchronized.
 */
public final class LazyGateway implements AutoCloseable {

    private final Supplier<String> bootstrapServers;
    private final String logName;
    private GatewayProcess gateway;

    /** A gateway for {@code bootstrapServers}, not started yet. */
    public LazyGateway(Supplier<String> bootstrapServers, String logName) {
        this.bootstrapServers = bootstrapServers;
        this.logName = logName;
    }

    /** The gateway's base URL, starting it on the first call. */
    public synchronized String url() {
        if (gateway == null) {
            try {
                gateway = GatewayProcess.start(bootstrapServers.get(), logName);
            } catch (Exception e) {
                throw new IllegalStateException(
                        "could not start a gateway in front of " + bootstrapServers.get() + ": " + e, e);
            }
        }
        return gateway.url();
    }

    /** Where its log is, for failure messages; empty while it was never started. */
    public synchronized String logsHint() {
        return gateway == null ? "" : "; " + gateway + " logs in " + gateway.logFile();
    }

    @Override
    public synchronized void close() {
        if (gateway != null) {
            gateway.close();
        }
    }
}
