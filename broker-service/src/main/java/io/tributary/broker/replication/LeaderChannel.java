package io.tributary.broker.replication;

import io.tributary.broker.cluster.BrokerEndpoint;
import java.io.IOException;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/** A connection from a follower's fetcher to a leader: one request at a time, blocking. */
interface LeaderChannel extends AutoCloseable {

    /**
     * Sends {@code request} and reads its response.
     *
     * @param maxResponseBytes a larger response frame fails the call (the connection is then unusable)
     */
    AbstractResponse send(AbstractRequest request, int maxResponseBytes) throws IOException;

    /** Closes the connection; a {@link #send} blocked on another thread fails. Idempotent. */
    @Override
    void close();

    /** Opens channels to leaders. */
    @FunctionalInterface
    interface Connector {
        LeaderChannel connect(BrokerEndpoint endpoint) throws IOException;
    }
}
