package io.tierlog.hot;

/**
 * Callbacks from a {@link PartitionLog}. Called on the appending (or rolling) thread after the
 * state change is visible to readers; implementations must be quick and thread-safe and must not
 * call back into {@code append}. Exceptions thrown by a listener are logged and ignored.
 */
public interface LogListener {
    /** New data is readable up to {@code highWatermark} (exclusive). */
    default void onAppend(PartitionLog log, long highWatermark) {}

    /** A segment was closed (rolled) and will not change any more. */
    default void onSegmentClosed(PartitionLog log, SegmentInfo segment) {}
}
