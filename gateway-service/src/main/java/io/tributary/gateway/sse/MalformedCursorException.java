package io.tributary.gateway.sse;

/** A cursor text that {@link CursorCodec} cannot read; the message says what is wrong with it. */
public final class MalformedCursorException extends RuntimeException {

    public MalformedCursorException(String message) {
        super(message);
    }
}
