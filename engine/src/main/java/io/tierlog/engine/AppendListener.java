package io.tierlog.engine;

import org.apache.kafka.common.TopicPartition;

/**
 * Told when new data of a partition becomes readable (a long-poll fetch waits for this). Registered
 * with {@link TieredLog#addAppendListener}; called on the appending thread right after the append,
 * so an implementation must be quick, must not block and must not throw. Implementations must be
 * thread-safe: appends to different partitions call it concurrently.
 */
@FunctionalInterface
public interface AppendListener {
    /** Records of {@code tp} are readable up to {@code highWatermark} (exclusive). */
    void onAppend(TopicPartition tp, long highWatermark);
}
