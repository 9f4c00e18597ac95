package io.tierlog.hot;

/** A read asked for an offset outside [logStartOffset, highWatermark]. Immutable. */
public final class OffsetOutOfRangeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public OffsetOutOfRangeException(String message) {
        super(message);
    }
}
