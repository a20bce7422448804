package io.tributary.coordinator.transaction;

import java.util.Objects;
import org.apache.kafka.common.protocol.Errors;

/**
 * A transaction request refused, with the Kafka error the producer is answered with (the
 * transaction protocol's errors are its contract with kafka-clients' producer, which decides from
 * them whether to retry, abort or give up, so the core names them directly).
 */
public final class TransactionException extends RuntimeException {

    private final Errors error;

    public TransactionException(Errors error, String message) {
        super(message);
        this.error = Objects.requireNonNull(error, "error");
    }

    /** The Kafka error to answer with. */
    public Errors error() {
        return error;
    }
}
