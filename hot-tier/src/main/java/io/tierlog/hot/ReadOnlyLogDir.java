package io.tierlog.hot;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/** Read-only view of a log dir that is not ours. Thread-safe. */
public final class ReadOnlyLogDir {
    public static ReadOnlyLogDir open(Path logDir) throws IOException {
        throw new UnsupportedOperationException("not yet");
    }

    public List<TopicPartition> partitions() {
        throw new UnsupportedOperationException("not yet");
    }

    public List<SegmentInfo> segments(TopicPartition tp) {
        throw new UnsupportedOperationException("not yet");
    }

    public FileSlice readSegment(SegmentInfo s) throws IOException {
        throw new UnsupportedOperationException("not yet");
    }
}
