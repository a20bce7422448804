package io.tributary.gateway.app;

import io.tributary.gateway.consume.EventStreamController;
import io.tributary.gateway.groups.GroupStreamController;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Ends the open SSE streams when the gateway stops, before the web server's graceful shutdown
 * (which waits for requests in flight, and a stream never ends by itself): each stream writes what
 * it has and ends, counted as {@code shutdown}, and its client reconnects elsewhere with its last
 * event id. Group streams commit what they wrote and leave their group (a static member, with
 * {@code member=}, leaves for the session timeout only, so its client gets its partitions back on
 * another replica).
 */
@Component
class SseShutdown implements SmartLifecycle {

    private final EventStreamController streams;
    private final GroupStreamController groupStreams;
    private volatile boolean running;

    SseShutdown(EventStreamController streams, GroupStreamController groupStreams) {
        this.streams = streams;
        this.groupStreams = groupStreams;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        streams.closeAllStreams();
        groupStreams.closeAllStreams();
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
