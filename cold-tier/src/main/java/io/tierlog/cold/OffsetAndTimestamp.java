package io.tierlog.cold;

/**
 * A record's offset and its timestamp in milliseconds (as consumers see it). Immutable.
 *
 * @param offset the record offset
 * @param timestamp the record timestamp (ms)
 */
public record OffsetAndTimestamp(long offset, long timestamp) {}
