package io.tributary.common.protocol;

/** A frame whose bytes are not a request that Kafka's codec can read. Closes the connection. */
public final class MalformedRequestException extends RuntimeException {

    public MalformedRequestException(String message, Throwable cause) {
        super(message, cause);
    }
}
