package io.tierlog.hot;

/**
 * A read of the hot log asked for an offset outside [logStartOffset, highWatermark]. Not Kafka's
 * {@code org.apache.kafka.common.errors.OffsetOutOfRangeException}, which callers above the hot
 * tier translate it into (the hot range is not the whole log once the cold tier holds older
 * offsets). Immutable.
 */
public final class LogOffsetOutOfRangeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LogOffsetOutOfRangeException(String message) {
        super(message);
    }
}
