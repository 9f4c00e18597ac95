package io.tierlog.server.fetch;

import io.tierlog.engine.ColdReadException;
import io.tierlog.engine.Isolation;
import io.tierlog.engine.LogOffsets;
import io.tierlog.engine.TierRead;
import io.tierlog.engine.TieredLog;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * {@link FetchSource} over both tiers through the engine's {@link TieredLog}: hot reads are file
 * slices (sendfile), completed at once; cold reads are rebuilt batches completed on the engine's
 * cold-read executor ({@link #readAsync}); the synchronous {@link #read} never waits for the cold
 * tier (it starts the load and answers with no records, so the consumer fetches again).
 * Thread-safe.
 */
public final class TieredFetchSource implements FetchSource {
    private final TieredLog log;

    public TieredFetchSource(TieredLog log) {
        this.log = log;
    }

    @Override
    public PartitionRead read(TopicPartition tp, long offset, int maxBytes) throws IOException {
        return read(tp, offset, maxBytes, Isolation.READ_UNCOMMITTED);
    }

    @Override
    public PartitionRead read(TopicPartition tp, long offset, int maxBytes, Isolation isolation)
            throws IOException {
        CompletableFuture<TierRead> f = log.read(tp, offset, maxBytes, isolation);
        if (!f.isDone()) {
            return offsets(tp);
        }
        try {
            return toRead(f.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        }
    }

    @Override
    public CompletionStage<PartitionRead> readAsync(TopicPartition tp, long offset, int maxBytes) {
        return readAsync(tp, offset, maxBytes, Isolation.READ_UNCOMMITTED);
    }

    @Override
    public CompletionStage<PartitionRead> readAsync(
            TopicPartition tp, long offset, int maxBytes, Isolation isolation) {
        return log.read(tp, offset, maxBytes, isolation).thenApply(TieredFetchSource::toRead);
    }

    /** The engine's answer, with the real last stable offset and the aborted transactions. */
    private static PartitionRead toRead(TierRead r) {
        BaseRecords records;
        if (r instanceof TierRead.Hot h) {
            records = h.isEmpty() ? MemoryRecords.EMPTY : new FileSliceRecords(h.region());
        } else {
            records = ((TierRead.Cold) r).records();
        }
        return new PartitionRead(
                records,
                r.highWatermark(),
                r.lastStableOffset(),
                r.logStartOffset(),
                r.abortedTransactions());
    }

    private static RuntimeException rethrow(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof ApiException a) {
            return a;
        }
        return new ColdReadException("read failed: " + t, t);
    }

    @Override
    public PartitionRead offsets(TopicPartition tp) {
        LogOffsets o = log.offsets(tp);
        return PartitionRead.empty(o.highWatermark(), o.lastStableOffset(), o.logStartOffset());
    }
}
