package io.tierlog.hot;

import java.nio.file.Path;
import org.apache.kafka.common.TopicPartition;

/**
 * A snapshot of one segment's extent. Immutable.
 *
 * @param tp the partition
 * @param baseOffset offset of the segment's first batch (also its file name)
 * @param nextOffset one past the last offset in the segment (= baseOffset when empty)
 * @param sizeInBytes bytes of valid batches in the {@code .log} file
 * @param maxTimestamp largest batch max timestamp in the segment, -1 when empty
 * @param closed false only for the active segment
 * @param logFile path of the {@code .log} file
 */
public record SegmentInfo(
        TopicPartition tp,
        long baseOffset,
        long nextOffset,
        long sizeInBytes,
        long maxTimestamp,
        boolean closed,
        Path logFile) {}
