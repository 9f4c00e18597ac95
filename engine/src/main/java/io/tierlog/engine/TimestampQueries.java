package io.tierlog.engine;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.hot.PartitionLog;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Timestamp queries of {@link TieredLog} across both tiers: the first offset at or after a
 * timestamp (Kafka's ListOffsets with a timestamp) and the largest timestamp (ListOffsets -3). The
 * cold tier is searched by the catalog's time ranges, then by reading the object's records through
 * {@link TierReads}; the hot tier by its time index. Only records at or above the log start ({@link
 * LogStart}) are answered.
 *
 * <p>Thread-safe: holds no mutable state; the catalog, cold index and reads it uses are.
 */
final class TimestampQueries {
    private static final Logger LOG = LoggerFactory.getLogger(TimestampQueries.class);

    /** Bound of the cold read that finds the exact record of a cold max timestamp. */
    private static final long COLD_SEARCH_TIMEOUT_SECONDS = 60;

    private final EngineResources res;
    private final Catalog catalog;
    private final ColdIndex coldIndex;
    private final ColdReader coldReader;
    private final TierReads reads;
    private final LogStart logStart;
    private final int chunkBytes;

    TimestampQueries(EngineResources res, TierReads reads, LogStart logStart) {
        this.res = res;
        this.catalog = res.catalog();
        this.coldIndex = res.coldIndex();
        this.coldReader = res.coldReader();
        this.reads = reads;
        this.logStart = logStart;
        this.chunkBytes = res.config().get(EngineOptions.COLD_READ_CHUNK_BYTES).toIntExact();
    }

    /**
     * The first record whose timestamp is at or after {@code timestampMs}, searching the cold tier
     * first (catalog time ranges, then the object's records, on the cold-read executor), then the
     * hot time index. Empty when no record is that recent.
     */
    CompletableFuture<Optional<TimestampOffset>> offsetForTimestamp(
            TopicPartition tp, long timestampMs) {
        PartitionLog log = reads.hot(tp);
        return anyOffsetForTimestamp(tp, log, timestampMs)
                .thenCompose(
                        o -> {
                            long start = logStart.logStart(tp, log);
                            if (o.isEmpty() || o.get().offset() >= start) {
                                return CompletableFuture.completedFuture(o);
                            }
                            // found in a batch or segment that straddles the log start: the
                            // answer is the first such record at or above it, as Kafka's
                            return scanRecords(tp, log, start, start, timestampMs);
                        });
    }

    /** The first record at or above {@code from} (and {@code start}) with a late enough time. */
    private CompletableFuture<Optional<TimestampOffset>> scanRecords(
            TopicPartition tp, PartitionLog log, long from, long start, long timestampMs) {
        if (from >= log.highWatermark()) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        return reads.read(tp, from, chunkBytes)
                .thenCompose(
                        r -> {
                            for (MutableRecordBatch b : r.toMemoryRecordsUnchecked().batches()) {
                                if (b.maxTimestamp() < timestampMs) {
                                    continue;
                                }
                                for (Record rec : b) {
                                    if (rec.offset() >= start && rec.timestamp() >= timestampMs) {
                                        return CompletableFuture.completedFuture(
                                                Optional.of(
                                                        new TimestampOffset(
                                                                rec.timestamp(), rec.offset())));
                                    }
                                }
                            }
                            if (r.isEmpty() || r.nextOffset() <= from) {
                                return CompletableFuture.completedFuture(
                                        Optional.<TimestampOffset>empty());
                            }
                            return scanRecords(tp, log, r.nextOffset(), start, timestampMs);
                        });
    }

    private CompletableFuture<Optional<TimestampOffset>> anyOffsetForTimestamp(
            TopicPartition tp, PartitionLog log, long timestampMs) {
        if (coldReader == null) {
            return CompletableFuture.completedFuture(
                    log.offsetForTimestamp(timestampMs).map(TimestampOffset::of));
        }
        CompletableFuture<Optional<ColdObject>> first;
        try {
            first =
                    CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    return catalog.firstObjectReaching(
                                            tp.topic(), tp.partition(), timestampMs);
                                } catch (RuntimeException e) {
                                    throw new ColdReadException("catalog unavailable: " + e, e);
                                }
                            },
                            res.coldExecutor());
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new ColdReadException("the log is closing", e));
        }
        return reads.track(first)
                .thenCompose(
                        o -> {
                            if (o.isEmpty() || o.get().firstOffset() >= log.logStartOffset()) {
                                return CompletableFuture.completedFuture(
                                        log.offsetForTimestamp(timestampMs)
                                                .map(TimestampOffset::of));
                            }
                            return scanCold(tp, log, o.get().firstOffset(), timestampMs);
                        });
    }

    private CompletableFuture<Optional<TimestampOffset>> scanCold(
            TopicPartition tp, PartitionLog log, long offset, long timestampMs) {
        long hotStart = log.logStartOffset();
        if (offset >= hotStart) {
            return CompletableFuture.completedFuture(
                    log.offsetForTimestamp(timestampMs).map(TimestampOffset::of));
        }
        return reads.read(tp, offset, chunkBytes)
                .thenCompose(
                        r -> {
                            for (MutableRecordBatch b : r.toMemoryRecordsUnchecked().batches()) {
                                if (b.maxTimestamp() < timestampMs) {
                                    continue;
                                }
                                for (Record rec : b) {
                                    if (rec.timestamp() >= timestampMs) {
                                        return CompletableFuture.completedFuture(
                                                Optional.of(
                                                        new TimestampOffset(
                                                                rec.timestamp(), rec.offset())));
                                    }
                                }
                            }
                            if (r.isEmpty() || r.nextOffset() <= offset) {
                                return CompletableFuture.completedFuture(
                                        log.offsetForTimestamp(timestampMs)
                                                .map(TimestampOffset::of));
                            }
                            return scanCold(tp, log, r.nextOffset(), timestampMs);
                        });
    }

    /**
     * The largest record timestamp and the offset of the first record carrying it (Kafka's
     * ListOffsets -3), over both tiers. When the cold tier holds the largest timestamp, its object
     * is read to find that record (the catalog knows only the object's range). May query the
     * catalog and read a cold object: call it off an event loop.
     */
    Optional<TimestampOffset> maxTimestamp(TopicPartition tp) {
        PartitionLog log = reads.hot(tp);
        Optional<TimestampOffset> hotMax = log.maxTimestamp().map(TimestampOffset::of);
        if (coldReader == null) {
            return hotMax;
        }
        ColdIndex.Snapshot s = coldIndex.snapshot(tp, 1000);
        Optional<TimestampOffset> coldMax =
                s.objects().values().stream()
                        .max((a, b) -> Long.compare(a.maxTimestamp(), b.maxTimestamp()))
                        .map(o -> new TimestampOffset(o.maxTimestamp(), o.lastOffset()));
        if (hotMax.isEmpty()) {
            return coldMax;
        }
        if (coldMax.isEmpty() || hotMax.get().timestamp() >= coldMax.get().timestamp()) {
            return hotMax;
        }
        return exactRecord(tp, coldMax.get());
    }

    /**
     * The first record at or after {@code max}'s timestamp, which is the first record carrying it
     * since no record is later; {@code max} itself (its object's last offset) if the search fails.
     */
    private Optional<TimestampOffset> exactRecord(TopicPartition tp, TimestampOffset max) {
        try {
            return Optional.of(
                    offsetForTimestamp(tp, max.timestamp())
                            .get(COLD_SEARCH_TIMEOUT_SECONDS, java.util.concurrent.TimeUnit.SECONDS)
                            .orElse(max));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of(max);
        } catch (java.util.concurrent.ExecutionException
                | java.util.concurrent.TimeoutException e) {
            LOG.debug("max timestamp of {}: cold search failed, answering its object's end", tp, e);
            return Optional.of(max);
        }
    }
}
