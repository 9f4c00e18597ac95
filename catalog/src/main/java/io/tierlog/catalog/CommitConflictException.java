package io.tierlog.catalog;

/**
 * A commit was refused because the object does not start at the partition's current cold high
 * watermark (a gap, an overlap, or another writer committed that range first). Nothing was written.
 * {@link #coldHighWatermark()} is the watermark the catalog held when it refused, so the caller can
 * resume from there. Immutable, so thread-safe.
 */
public class CommitConflictException extends CommitFailedException {
    private static final long serialVersionUID = 1L;

    private final long coldHighWatermark;
    private final boolean partitionEmpty;

    public CommitConflictException(String message, long coldHighWatermark, boolean partitionEmpty) {
        super(message);
        this.coldHighWatermark = coldHighWatermark;
        this.partitionEmpty = partitionEmpty;
    }

    /** The partition's cold high watermark at the time of the refusal. */
    public long coldHighWatermark() {
        return coldHighWatermark;
    }

    /**
     * True if the partition had no object yet (then any first offset >= 0 would have been taken).
     */
    public boolean partitionEmpty() {
        return partitionEmpty;
    }
}
