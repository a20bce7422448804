package io.tributary.gateway.app;

import io.tributary.gateway.consume.EventStreamController;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Ends the open SSE streams when the gateway stops, before the web server's graceful shutdown
 * (which waits for requests in flight, and a stream never ends by itself): each stream writes what
 * it has and ends, counted as {@code shutdown}, and its client reconnects elsewhere with its last
 * event id.
 */
@Component
class SseShutdown implements SmartLifecycle {

    private final EventStreamController streams;
    private volatile boolean running;

    SseShutdown(EventStreamController streams) {
        this.streams = streams;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        streams.closeAllStreams();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Stops before the graceful shutdown of the web server (a higher phase stops earlier). */
    @Override
    public int getPhase() {
        return WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE + 1;
    }
}
