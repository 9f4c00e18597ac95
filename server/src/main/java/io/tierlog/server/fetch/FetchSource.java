package io.tierlog.server.fetch;

import io.tierlog.engine.Isolation;
import java.io.IOException;
import org.apache.kafka.common.TopicPartition;

/**
 * Where a fetch finds its record batches: {@link TieredFetchSource} routes by offset through the
 * engine, to the hot tier (segment files, sent with sendfile) or to the cold tier (in-memory
 * batches rebuilt from Parquet); tests may wrap it to inject faults.
 *
 * <p>Contract: {@link #read} returns whole batches starting with the one that contains {@code
 * offset}, at most {@code maxBytes} unless the first batch alone is larger (then exactly that
 * batch, so consumers always progress), never past the high watermark; {@code offset ==
 * highWatermark} gives empty records. Implementations are thread-safe.
 */
public interface FetchSource {
    /**
     * @throws org.apache.kafka.common.errors.UnknownTopicOrPartitionException no such partition
     * @throws org.apache.kafka.common.errors.OffsetOutOfRangeException offset outside [log start,
     *     high watermark]
     */
    PartitionRead read(TopicPartition tp, long offset, int maxBytes) throws IOException;

    /**
     * As {@link #read}, but a source whose data may be remote (the cold tier) completes later, on
     * its own threads, instead of blocking. Failures complete the stage exceptionally, except an
     * unknown partition, which may also throw. The default completes with {@link #read} at once.
     */
    default java.util.concurrent.CompletionStage<PartitionRead> readAsync(
            TopicPartition tp, long offset, int maxBytes) {
        try {
            return java.util.concurrent.CompletableFuture.completedFuture(
                    read(tp, offset, maxBytes));
        } catch (IOException | RuntimeException e) {
            return java.util.concurrent.CompletableFuture.failedFuture(e);
        }
    }

    /**
     * As {@link #read(TopicPartition, long, int)} with an isolation level: {@link
     * Isolation#READ_COMMITTED} returns no batch at or above the last stable offset and carries the
     * aborted transactions of the records. The default ignores the isolation (a source with no
     * transactions).
     */
    default PartitionRead read(TopicPartition tp, long offset, int maxBytes, Isolation isolation)
            throws IOException {
        return read(tp, offset, maxBytes);
    }

    /** As {@link #readAsync(TopicPartition, long, int)} with an isolation level. */
    default java.util.concurrent.CompletionStage<PartitionRead> readAsync(
            TopicPartition tp, long offset, int maxBytes, Isolation isolation) {
        return readAsync(tp, offset, maxBytes);
    }

    /** Offsets of a partition without reading. @throws UnknownTopicOrPartitionException */
    PartitionRead offsets(TopicPartition tp);
}
