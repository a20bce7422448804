package io.tributary.common.protocol;

import java.io.IOException;
import org.apache.kafka.common.network.TransferableChannel;

/**
 * Where a connection's responses go: kafka-clients' {@code Send} writes a response into it, then
 * {@link #flush()} sends whatever the channel still holds. {@link SocketTransferableChannel} writes
 * a plain socket directly (and holds nothing); {@link TlsChannel} collects a response into TLS
 * records.
 */
public interface ResponseChannel extends TransferableChannel {

    /** Sends everything written so far; returns once the socket took it. */
    void flush() throws IOException;
}
