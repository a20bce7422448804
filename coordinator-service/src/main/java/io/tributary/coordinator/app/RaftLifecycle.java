package io.tributary.coordinator.app;

import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/** Starts this coordinator's metadata voter with the application and closes it at shutdown. */
class RaftLifecycle implements SmartLifecycle {

    /** Before the liveness loop and the web server, after nothing. */
    static final int PHASE = Integer.MIN_VALUE / 2;

    private static final Logger log = LoggerFactory.getLogger(RaftLifecycle.class);

    private final MetadataRaftNode node;
    private volatile boolean running;

    RaftLifecycle(MetadataRaftNode node) {
        this.node = node;
    }

    @Override
    public void start() {
        try {
            node.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start metadata voter " + node.id(), e);
        }
        running = true;
        log.info("metadata voter {} started in group {}", node.id(), node.group());
    }

    @Override
    public void stop() {
        running = false;
        try {
            node.close();
        } catch (IOException e) {
            log.warn("metadata voter {} did not close cleanly", node.id(), e);
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
