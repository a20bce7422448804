package io.tributary.common.security.oauth;

/**
 * A token that {@link JwtValidator} refuses; the message says why, for the broker's log (the
 * client is only told {@code invalid_token}, as Kafka tells it).
 */
public final class InvalidTokenException extends RuntimeException {

    public InvalidTokenException(String message) {
        super(message);
    }
}
