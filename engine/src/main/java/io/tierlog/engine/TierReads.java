package io.tierlog.engine;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tierlog.hot.AbortedTxn;
import io.tierlog.hot.FileSlice;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.LogOfflineException;
import io.tierlog.hot.PartitionLog;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The read path of {@link TieredLog}: which tier serves an offset (hot at or above the hot log
 * start, unless its bytes are known damaged; cold below it), the counters of both, and the cold
 * reads still in flight, failed when the log closes so that no caller waits forever. See {@link
 * TieredLog#read} for the contract.
 *
 * <p>Thread-safe: the hot tier, cold reader and counters are; the in-flight set is concurrent, and
 * the closed flag volatile (a future registered while closing is failed by whichever of {@link
 * #track} and {@link #failInFlight} runs last).
 */
final class TierReads {
    private final LogManager logs;
    private final ColdIndex coldIndex;
    private final ColdReader coldReader;
    private final LogStart logStart;
    private final Counter hotBytesOut;
    private final Counter coldBytesOut;
    private final Counter hotReads;
    private final Counter coldReads;
    private volatile boolean closed;

    /** Cold reads not yet completed: failed on close so no caller waits forever. */
    private final Set<CompletableFuture<?>> inFlight = ConcurrentHashMap.newKeySet();

    TierReads(EngineResources res, LogStart logStart) {
        this.logs = res.logs();
        this.coldIndex = res.coldIndex();
        this.coldReader = res.coldReader();
        this.logStart = logStart;
        MeterRegistry registry = res.registry();
        this.hotBytesOut = registry.counter(MetricNames.BYTES_OUT, "tier", "hot");
        this.coldBytesOut = registry.counter(MetricNames.BYTES_OUT, "tier", "cold");
        this.hotReads = registry.counter(MetricNames.READS, "tier", "hot");
        this.coldReads = registry.counter(MetricNames.READS, "tier", "cold");
    }

    /**
     * The hot log of a partition.
     *
     * @throws UnknownTopicOrPartitionException if the partition does not exist
     * @throws org.apache.kafka.common.errors.KafkaStorageException if the log is closed
     */
    PartitionLog hot(TopicPartition tp) {
        if (closed) {
            throw new org.apache.kafka.common.errors.KafkaStorageException("the log is closed");
        }
        return logs.partition(tp)
                .orElseThrow(() -> new UnknownTopicOrPartitionException("Unknown partition " + tp));
    }

    /** From now on no partition is served and every tracked future fails. */
    void markClosed() {
        closed = true;
    }

    /** Fails the cold reads still pending (after {@link #markClosed} and closing the resources). */
    void failInFlight() {
        for (CompletableFuture<?> f : inFlight) {
            f.completeExceptionally(new ColdReadException("the log was closed", null));
        }
        inFlight.clear();
    }

    /** As {@link TieredLog#read}. */
    CompletableFuture<TierRead> read(TopicPartition tp, long offset, int maxBytes) {
        return read(tp, offset, maxBytes, Isolation.READ_UNCOMMITTED);
    }

    /**
     * As {@link TieredLog#read(TopicPartition, long, int, Isolation)}. The last stable offset is
     * read first: a transaction completed below it has its abort entry in the txn index already
     * (the hot tier moves the LSO only after writing it), so the list read after the slice is
     * complete for the slice.
     */
    CompletableFuture<TierRead> read(
            TopicPartition tp, long offset, int maxBytes, Isolation isolation) {
        PartitionLog log = hot(tp);
        boolean committed = isolation == Isolation.READ_COMMITTED;
        long hotStart = log.logStartOffset();
        long hw = log.highWatermark();
        long start = logStart.logStart(tp, log);
        if (offset < start && offset >= 0) {
            return CompletableFuture.failedFuture(
                    new OffsetOutOfRangeException(
                            "Offset "
                                    + offset
                                    + " of "
                                    + tp
                                    + " is below the log start offset "
                                    + start));
        }
        if (offset >= hotStart) {
            long damagedEnd = log.damagedRangeEnd(offset);
            if (damagedEnd >= 0 && offset < hw && coldReader != null) {
                return readDamaged(tp, log, offset, maxBytes, damagedEnd, isolation);
            }
            try {
                long lso = log.lastStableOffset();
                // a read stops before a damaged range, so that the next one can go to the cold
                // tier; read_committed also at the LSO (a batch boundary: an open transaction's
                // first batch), where [LSO, HW] answers empty, as Kafka
                long maxOffset = log.nextDamagedStart(offset);
                if (committed) {
                    maxOffset = Math.min(maxOffset, lso);
                }
                FileSlice slice = log.read(offset, Math.max(0, maxBytes), maxOffset);
                hotReads.increment();
                hotBytesOut.increment(slice.sizeInBytes());
                long reportedHw = Math.max(hw, slice.isEmpty() ? offset : slice.nextOffset());
                return CompletableFuture.completedFuture(
                        hotRead(
                                log,
                                slice,
                                offset,
                                reportedHw,
                                logStart.earliest(tp, log),
                                lso,
                                committed));
            } catch (io.tierlog.hot.LogOffsetOutOfRangeException e) {
                if (offset >= log.logStartOffset()) {
                    return CompletableFuture.failedFuture(
                            new OffsetOutOfRangeException(e.getMessage()));
                }
                // Local retention moved the hot start past offset meanwhile: the cold tier has it.
                hotStart = log.logStartOffset();
            } catch (LogOfflineException e) {
                return CompletableFuture.failedFuture(
                        new org.apache.kafka.common.errors.KafkaStorageException(
                                e.getMessage(), e));
            } catch (IOException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        if (offset < 0) {
            return CompletableFuture.failedFuture(
                    new OffsetOutOfRangeException(
                            "Offset " + offset + " of " + tp + " is negative"));
        }
        if (coldReader == null) {
            return CompletableFuture.failedFuture(
                    new OffsetOutOfRangeException(
                            "Offset "
                                    + offset
                                    + " of "
                                    + tp
                                    + " is below the log start "
                                    + hotStart
                                    + " (hot tier only)"));
        }
        long stopBefore = hotStart;
        CompletableFuture<TierRead.Cold> cold;
        try {
            cold =
                    coldReader.read(
                            tp,
                            offset,
                            Math.max(0, maxBytes),
                            stopBefore,
                            hw,
                            Math.min(offset, hotStart));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new ColdReadException("the log is closing", e));
        }
        return track(cold.handle((r, e) -> coldResult(tp, log, r, e, committed)))
                .thenCompose(
                        t ->
                                // the end of a compacted object held no batch: go on where the
                                // cold read stopped (the hot tier's start), never answer empty
                                t.isEmpty() && t.nextOffset() > offset
                                        ? read(tp, t.nextOffset(), maxBytes, isolation)
                                        : CompletableFuture.completedFuture(t));
    }

    /**
     * A read of an offset whose hot bytes are known corrupt ({@link PartitionLog#markDamaged}): the
     * cold tier's copy, up to the end of the damaged range; the hot bytes only when the cold tier
     * does not hold the offset (then the consumer sees the corruption, as it would without tiers).
     */
    private CompletableFuture<TierRead> readDamaged(
            TopicPartition tp,
            PartitionLog log,
            long offset,
            int maxBytes,
            long damagedEnd,
            Isolation isolation) {
        boolean committed = isolation == Isolation.READ_COMMITTED;
        CompletableFuture<TierRead.Cold> cold;
        try {
            cold =
                    coldReader.read(
                            tp,
                            offset,
                            Math.max(0, maxBytes),
                            damagedEnd,
                            log.highWatermark(),
                            Math.min(offset, log.logStartOffset()));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new ColdReadException("the log is closing", e));
        }
        return track(
                cold.handle(
                                (r, e) -> {
                                    if (e != null
                                            && ColdReader.translate(e)
                                                    instanceof OffsetOutOfRangeException) {
                                        return null; // not in the cold tier: the hot bytes are all
                                        // there is
                                    }
                                    return coldResult(tp, log, r, e, committed);
                                })
                        .thenCompose(
                                t -> {
                                    if (t != null) {
                                        return CompletableFuture.completedFuture(t);
                                    }
                                    try {
                                        long lso = log.lastStableOffset();
                                        FileSlice slice =
                                                committed
                                                        ? log.read(
                                                                offset, Math.max(0, maxBytes), lso)
                                                        : log.read(offset, Math.max(0, maxBytes));
                                        hotReads.increment();
                                        hotBytesOut.increment(slice.sizeInBytes());
                                        return CompletableFuture.completedFuture(
                                                hotRead(
                                                        log,
                                                        slice,
                                                        offset,
                                                        Math.max(
                                                                log.highWatermark(),
                                                                slice.isEmpty()
                                                                        ? offset
                                                                        : slice.nextOffset()),
                                                        logStart.earliest(tp, log),
                                                        lso,
                                                        committed));
                                    } catch (IOException | RuntimeException ex) {
                                        return CompletableFuture.failedFuture(ex);
                                    }
                                }));
    }

    /** The answer of a cold read, counted; a failure rethrown as the caller should see it. */
    private TierRead coldResult(
            TopicPartition tp, PartitionLog log, TierRead.Cold r, Throwable e, boolean committed) {
        if (e != null) {
            throw ColdReader.translate(e); // counted and logged by the cold reader
        }
        coldReads.increment();
        coldBytesOut.increment(r.sizeInBytes());
        long start =
                coldIndex
                        .cached(tp)
                        .filter(s -> !s.isEmpty())
                        .map(s -> Math.min(s.coldLogStartOffset(), log.logStartOffset()))
                        .orElse(r.logStartOffset());
        start = Math.max(start, logStart.logStart(tp, log));
        long lso = log.lastStableOffset();
        long hw = log.highWatermark();
        return new TierRead.Cold(
                r.records(),
                r.objectKey(),
                r.nextOffset(),
                hw,
                start,
                Math.min(lso, hw),
                committed && !r.isEmpty() ? r.abortedTransactions() : List.of());
    }

    /**
     * A hot answer with the partition's last stable offset and, for read_committed, the aborted
     * transactions of {@code [offset, slice end)} from the txn index.
     */
    private static TierRead.Hot hotRead(
            PartitionLog log,
            FileSlice slice,
            long offset,
            long hw,
            long earliest,
            long lso,
            boolean committed)
            throws IOException {
        List<AbortedTransaction> aborted = List.of();
        if (committed && !slice.isEmpty()) {
            List<AbortedTxn> entries = log.abortedTransactions(offset, slice.nextOffset());
            if (!entries.isEmpty()) {
                aborted = new ArrayList<>(entries.size());
                for (AbortedTxn a : entries) {
                    aborted.add(new AbortedTransaction(a.producerId(), a.firstOffset()));
                }
            }
        }
        // the high watermark was read before the LSO: never report an LSO above it
        return new TierRead.Hot(slice, offset, hw, earliest, Math.min(lso, hw), aborted);
    }

    /** Registers a cold-tier future so that {@link #close()} can fail it if still pending. */
    <T> CompletableFuture<T> track(CompletableFuture<T> f) {
        CompletableFuture<T> out = new CompletableFuture<>();
        inFlight.add(out);
        f.whenComplete(
                (v, e) -> {
                    inFlight.remove(out);
                    if (e != null) {
                        out.completeExceptionally(ColdReader.unwrap(e));
                    } else {
                        out.complete(v);
                    }
                });
        if (closed) {
            out.completeExceptionally(new ColdReadException("the log is closed", null));
        }
        return out;
    }
}
