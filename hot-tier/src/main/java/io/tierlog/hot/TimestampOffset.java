package io.tierlog.hot;

/**
 * A timestamp and the offset of the record carrying it. Immutable.
 *
 * @param timestamp milliseconds since the epoch
 * @param offset record offset
 */
public record TimestampOffset(long timestamp, long offset) {}
