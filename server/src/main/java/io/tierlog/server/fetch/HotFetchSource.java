package io.tierlog.server.fetch;

import io.tierlog.hot.FileSlice;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.PartitionLog;
import java.io.IOException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.record.internal.MemoryRecords;

/** {@link FetchSource} over the hot tier's segment files. Thread-safe (the logs are). */
public final class HotFetchSource implements FetchSource {
    private final LogManager logs;

    public HotFetchSource(LogManager logs) {
        this.logs = logs;
    }

    private PartitionLog log(TopicPartition tp) {
        return logs.partition(tp)
                .orElseThrow(
                        () ->
                                new UnknownTopicOrPartitionException(
                                        "This server does not host " + tp));
    }

    @Override
    public PartitionRead read(TopicPartition tp, long offset, int maxBytes) throws IOException {
        PartitionLog log = log(tp);
        // Offsets first: a read never returns data past the high watermark it reports.
        long logStart = log.logStartOffset();
        FileSlice slice;
        try {
            slice = log.read(offset, maxBytes);
        } catch (io.tierlog.hot.LogOffsetOutOfRangeException e) {
            throw new OffsetOutOfRangeException(e.getMessage());
        }
        long hw = Math.max(log.highWatermark(), slice.isEmpty() ? offset : slice.nextOffset());
        return new PartitionRead(
                slice.isEmpty() ? MemoryRecords.EMPTY : new FileSliceRecords(slice),
                hw,
                hw,
                logStart);
    }

    @Override
    public PartitionRead offsets(TopicPartition tp) {
        PartitionLog log = log(tp);
        long hw = log.highWatermark();
        return PartitionRead.empty(hw, log.logStartOffset());
    }
}
