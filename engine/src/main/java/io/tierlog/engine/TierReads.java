package io.tierlog.engine;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tierlog.hot.FileSlice;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.LogOfflineException;
import io.tierlog.hot.PartitionLog;
import java.io.IOException;
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
        PartitionLog log = hot(tp);
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
                return readDamaged(tp, log, offset, maxBytes, damagedEnd);
            }
            try {
                // a read stops before a damaged range, so that the next one can go to the cold tier
                FileSlice slice =
                        log.read(offset, Math.max(0, maxBytes), log.nextDamagedStart(offset));
                hotReads.increment();
                hotBytesOut.increment(slice.sizeInBytes());
                long reportedHw = Math.max(hw, slice.isEmpty() ? offset : slice.nextOffset());
                return CompletableFuture.completedFuture(
                        new TierRead.Hot(slice, offset, reportedHw, logStart.earliest(tp, log)));
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
        return track(cold.handle((r, e) -> coldResult(tp, log, r, e)))
                .thenCompose(
                        t ->
                                // the end of a compacted object held no batch: go on where the
                                // cold read stopped (the hot tier's start), never answer empty
                                t.isEmpty() && t.nextOffset() > offset
                                        ? read(tp, t.nextOffset(), maxBytes)
                                        : CompletableFuture.completedFuture(t));
    }

    /**
     * A read of an offset whose hot bytes are known corrupt ({@link PartitionLog#markDamaged}): the
     * cold tier's copy, up to the end of the damaged range; the hot bytes only when the cold tier
     * does not hold the offset (then the consumer sees the corruption, as it would without tiers).
     */
    private CompletableFuture<TierRead> readDamaged(
            TopicPartition tp, PartitionLog log, long offset, int maxBytes, long damagedEnd) {
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
                                    return coldResult(tp, log, r, e);
                                })
                        .thenCompose(
                                t -> {
                                    if (t != null) {
                                        return CompletableFuture.completedFuture(t);
                                    }
                                    try {
                                        FileSlice slice = log.read(offset, Math.max(0, maxBytes));
                                        hotReads.increment();
                                        hotBytesOut.increment(slice.sizeInBytes());
                                        return CompletableFuture.completedFuture(
                                                (TierRead)
                                                        new TierRead.Hot(
                                                                slice,
                                                                offset,
                                                                Math.max(
                                                                        log.highWatermark(),
                                                                        slice.nextOffset()),
                                                                logStart.earliest(tp, log)));
                                    } catch (IOException | RuntimeException ex) {
                                        return CompletableFuture.failedFuture(ex);
                                    }
                                }));
    }

    /** The answer of a cold read, counted; a failure rethrown as the caller should see it. */
    private TierRead coldResult(TopicPartition tp, PartitionLog log, TierRead.Cold r, Throwable e) {
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
        return new TierRead.Cold(
                r.records(), r.objectKey(), r.nextOffset(), log.highWatermark(), start);
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
