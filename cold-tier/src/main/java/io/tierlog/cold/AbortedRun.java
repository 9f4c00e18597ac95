package io.tierlog.cold;

/**
 * A run of one producer's aborted batches within a chunk of a cold object: from its first aborted
 * data batch in the chunk to its abort marker (or to the chunk's last offset, when the marker lies
 * beyond the chunk). A {@code read_committed} reader of any range overlapping {@code [firstOffset,
 * lastOffset]} must be told of the aborted transaction {@code (producerId, firstOffset)}, which
 * lies inside the transaction itself, as Fetch's {@code aborted_transactions} requires. Immutable.
 */
public record AbortedRun(long producerId, long firstOffset, long lastOffset) {
    /** True if the run holds any offset of {@code [from, next)}. */
    public boolean overlaps(long from, long next) {
        return lastOffset >= from && firstOffset < next;
    }
}
