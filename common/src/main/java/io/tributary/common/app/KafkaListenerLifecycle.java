package io.tributary.common.app;

import io.tributary.common.protocol.KafkaProtocolServer;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the Kafka-protocol listener with the application context and closes it (letting requests
 * in flight finish) when the context stops.
 */
public final class KafkaListenerLifecycle implements SmartLifecycle {

    private final KafkaProtocolServer server;
    private volatile boolean running;

    public KafkaListenerLifecycle(KafkaProtocolServer server) {
        this.server = server;
    }

    @Override
    public void start() {
        server.start();
        running = true;
    }

    @Override
    public void stop() {
        server.close();
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** The listener, for its bound port and state. */
    public KafkaProtocolServer server() {
        return server;
    }
}
