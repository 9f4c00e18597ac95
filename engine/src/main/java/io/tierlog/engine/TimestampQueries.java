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
                            // an object straddling the log start is read from the log start:
                            // below it a read is out of range
                            long from = Math.max(o.get().firstOffset(), logStart.logStart(tp, log));
                            return scanCold(tp, log, from, timestampMs);
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
     * The largest timestamp of the records at or above the log start and the offset of the first
     * record carrying it (Kafka's ListOffsets -3), over both tiers. When the cold tier holds the
     * largest timestamp, its object is read to find that record (the catalog knows only the
     * object's range). A hot segment or cold object that starts below the log start (DeleteRecords
     * moved it inside) may have its maximum below it: when such a one could hold the answer, its
     * records at or above the log start are read to find their largest timestamp. May query the
     * catalog and read a cold object: call it off an event loop.
     *
     * @throws ColdReadException if records straddling the log start had to be read and could not
     */
    Optional<TimestampOffset> maxTimestamp(TopicPartition tp) {
        PartitionLog log = reads.hot(tp);
        ColdIndex.Snapshot s = coldReader == null ? null : coldIndex.snapshot(tp, 1000);
        long start = logStart.logStart(tp, log);
        // the largest maximum of the segments and objects wholly at or above the log start, and
        // of those that start below it (whose maximum may be a deleted record), with their end
        TimestampOffset clean = null;
        long below = -1;
        long belowEnd = start;
        for (io.tierlog.hot.SegmentInfo seg : log.segments()) {
            if (seg.maxTimestamp() < 0) {
                continue;
            } else if (seg.baseOffset() >= start) {
                if (clean == null || seg.maxTimestamp() > clean.timestamp()) {
                    clean = new TimestampOffset(seg.maxTimestamp(), seg.nextOffset() - 1);
                }
            } else {
                below = Math.max(below, seg.maxTimestamp());
                belowEnd = Math.max(belowEnd, seg.nextOffset());
            }
        }
        if (s != null) {
            for (ColdObject o : s.objects().values()) {
                if (o.firstOffset() >= start) {
                    if (clean == null || o.maxTimestamp() > clean.timestamp()) {
                        clean = new TimestampOffset(o.maxTimestamp(), o.lastOffset());
                    }
                } else {
                    below = Math.max(below, o.maxTimestamp());
                    belowEnd = Math.max(belowEnd, o.lastOffset() + 1);
                }
            }
        }
        if (below < 0 || (clean != null && below < clean.timestamp())) {
            return maxOverTiers(tp, log, s); // nothing below the log start can be the answer
        }
        // [start, belowEnd) holds every record of the straddling ones at or above the log start,
        // and any record of a wholly-above one below belowEnd: its first maximum is the earliest
        TimestampOffset straddling = maxInRange(tp, start, Math.min(belowEnd, log.highWatermark()));
        if (straddling != null && (clean == null || straddling.timestamp() >= clean.timestamp())) {
            return Optional.of(straddling);
        }
        // the first record at or after the clean maximum at or above the log start carries it
        return clean == null ? Optional.empty() : exactRecord(tp, clean);
    }

    /** The maximum of the tiers' maxima, when no record below the log start can be the largest. */
    private Optional<TimestampOffset> maxOverTiers(
            TopicPartition tp, PartitionLog log, ColdIndex.Snapshot s) {
        Optional<TimestampOffset> hotMax = log.maxTimestamp().map(TimestampOffset::of);
        if (s == null) {
            return hotMax;
        }
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
     * The first record of the largest timestamp among the records in [{@code from}, {@code end}),
     * read from whichever tier holds them; null when there is none.
     */
    private TimestampOffset maxInRange(TopicPartition tp, long from, long end) {
        TimestampOffset best = null;
        long next = from;
        while (next < end) {
            TierRead r;
            try {
                r =
                        reads.read(tp, next, chunkBytes)
                                .get(
                                        COLD_SEARCH_TIMEOUT_SECONDS,
                                        java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ColdReadException("interrupted reading the records of " + tp, e);
            } catch (java.util.concurrent.ExecutionException
                    | java.util.concurrent.TimeoutException e) {
                throw new ColdReadException(
                        "cannot read the records of " + tp + " at the log start: " + e, e);
            }
            for (MutableRecordBatch b : r.toMemoryRecordsUnchecked().batches()) {
                if (b.baseOffset() >= end) {
                    return best;
                }
                if (b.lastOffset() < from
                        || (best != null && b.maxTimestamp() <= best.timestamp())) {
                    continue;
                }
                for (Record rec : b) {
                    if (rec.offset() >= from
                            && rec.offset() < end
                            && (best == null || rec.timestamp() > best.timestamp())) {
                        best = new TimestampOffset(rec.timestamp(), rec.offset());
                    }
                }
            }
            if (r.isEmpty() || r.nextOffset() <= next) {
                return best;
            }
            next = r.nextOffset();
        }
        return best;
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
