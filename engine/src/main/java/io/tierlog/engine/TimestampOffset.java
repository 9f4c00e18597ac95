package io.tierlog.engine;

/**
 * A record's timestamp and offset: the answer of {@link TieredLog#offsetForTimestamp} and {@link
 * TieredLog#maxTimestamp} (Kafka's ListOffsets by time). Immutable.
 *
 * @param timestamp the record's timestamp (epoch millis)
 * @param offset its offset (for {@code maxTimestamp}, the last offset of its batch, as Kafka)
 */
public record TimestampOffset(long timestamp, long offset) {
    static TimestampOffset of(io.tierlog.hot.TimestampOffset hot) {
        return new TimestampOffset(hot.timestamp(), hot.offset());
    }
}
