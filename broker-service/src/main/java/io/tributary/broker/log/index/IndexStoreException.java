package io.tributary.broker.log.index;

/** RocksDB failed: the broker's storage is unusable (Kafka's {@code KAFKA_STORAGE_ERROR}). */
public final class IndexStoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public IndexStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
