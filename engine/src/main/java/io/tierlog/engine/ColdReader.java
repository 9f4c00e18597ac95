package io.tierlog.engine;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tierlog.catalog.CatalogException;
import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.AbortedRun;
import io.tierlog.cold.ColdBatches;
import io.tierlog.cold.ObjectCorruptException;
import io.tierlog.cold.ObjectNotFoundException;
import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.ParquetLogReader;
import io.tierlog.common.Time;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;

/**
 * Serves reads below the hot tier from Parquet objects. Everything that can wait on I/O (catalog
 * lookups, GETs, decoding) runs on its own executor; a read whose chunk is already decoded is
 * served on the caller's thread, because handing it to a busy executor only queued it behind
 * read-ahead decoding (the Netty event loop never waits either way).
 *
 * <p>An object is read in <em>chunks</em>: whole batches from a start offset, up to {@code
 * cold.read.chunk.bytes}, decoded once by {@link ParquetLogReader} (which fetches only the pages it
 * needs with ranged GETs). Chunks live in a Caffeine cache weighed by their bytes ({@code
 * cold.cache.bytes}); a per-object index finds the cached chunk that covers any offset, so readers
 * with any fetch size share chunks. A read that misses the cache loads a small chunk (its fetch
 * size, at least 1 MiB) so that a seek gets its first batch fast; whole chunks come from
 * read-ahead. Loads are single-flight: concurrent readers asking for the same chunk wait on one
 * future and one set of GETs. Parquet readers (footer and page indexes) are cached per object
 * ({@code cold.metadata.cache.objects}). A sequential reader (one that continues where its last
 * read stopped, or consumed a chunk to its end) makes the next {@code cold.read.ahead.chunks}
 * chunks load in parallel, at offsets estimated from the last chunk's span (scaled to a whole
 * chunk; a chunk loaded from any offset starts with the batch holding it), and at the end of an
 * object the first chunk of the next one; a reader arriving while its chunk is still loading joins
 * that load. One chunk load is bound by S3 round trips rather than CPU, so parallel loads add
 * throughput.
 *
 * <p>Failures of the store or catalog complete the future with a {@link ColdReadException}
 * (retriable); offsets the cold tier does not hold with {@link OffsetOutOfRangeException}. Every
 * read has a deadline ({@code cold.read.timeout.ms}): a store that never answers fails the read
 * with a {@link ColdReadException} then (the load itself goes on, bounded by the store's own
 * deadlines, and a later read joins it), so a stuck call never pins a Fetch. Each failure counts in
 * {@link MetricNames#COLD_READ_ERRORS} by {@code cause} (see {@link ColdReadErrors}) and is logged
 * at WARN with the object key, its offset range, the offset read and the cause, at most once per
 * object (or partition, when no object was found) per minute.
 *
 * <p>Transactions: every cold offset lies below the partition's last stable offset (the offload
 * stops there), so a cold read needs no cap for {@code read_committed}. Each answer carries in
 * {@link TierRead#abortedTransactions()} what such a reader must skip, whatever the isolation (the
 * caller drops it for read_uncommitted): the aborted runs {@link ParquetLogReader} found in the
 * chunk's batches from {@code batch_txn_state} that hold any offset of {@code [offset read,
 * nextOffset)}, each as {@code (producerId, first offset of the run)}, by first offset; no hot data
 * needed.
 *
 * <p>Thread-safe.
 */
final class ColdReader {
    private record ChunkKey(String objectKey, long startOffset) {}

    /**
     * Decoded batches of one object from {@code firstOffset} (a batch base) to {@code next}, or the
     * failure of loading them ({@code records == null}). Failures are values rather than failed
     * futures so that an S3 outage does not log a stack trace per request; they are removed from
     * the cache as soon as a reader sees them.
     */
    private record Chunk(
            MemoryRecords records,
            long firstOffset,
            long nextOffset,
            Throwable error,
            long[] indexBaseOffsets,
            int[] indexPositions,
            List<AbortedRun> abortedRuns) {
        static Chunk failed(Throwable error) {
            return new Chunk(null, -1, -1, error, null, null, List.of());
        }

        /**
         * The aborted transactions of this chunk holding offsets of {@code [from, next)}: a
         * producer's run of aborted batches in the chunk, as {@code (producerId, its first
         * offset)}, which lies inside that transaction, in or before the range.
         */
        List<AbortedTransaction> abortedTransactions(long from, long next) {
            if (abortedRuns.isEmpty()) {
                return List.of();
            }
            List<AbortedTransaction> out = new ArrayList<>();
            for (AbortedRun r : abortedRuns) {
                if (r.overlaps(from, next)) {
                    out.add(new AbortedTransaction(r.producerId(), r.firstOffset()));
                }
            }
            return out;
        }

        /**
         * Byte position of a batch at or before the one holding {@code offset}: the sparse index (a
         * batch every 64 KiB) spares serving a scan of every batch header of the chunk from its
         * start.
         */
        int scanStart(long offset) {
            int i = java.util.Arrays.binarySearch(indexBaseOffsets, offset);
            if (i < 0) {
                i = -i - 2; // greatest base offset below offset
            }
            return i < 0 ? 0 : indexPositions[i];
        }

        int weight() {
            return records == null ? 0 : records.sizeInBytes();
        }

        boolean covers(long offset) {
            return records != null && firstOffset <= offset && offset < nextOffset;
        }
    }

    /** Bytes between two batches of a chunk's sparse index. */
    private static final int INDEX_INTERVAL = 64 * 1024;

    private final ObjectStore store;
    private final ColdIndex index;
    private final Executor executor;
    private final int chunkBytes;

    /** Least a cache miss decodes (see {@link #missBytes}). */
    static final int MIN_MISS_BYTES = 1 << 20;

    private final boolean readAhead;
    private final AsyncCache<ChunkKey, Chunk> chunks;
    private final Cache<String, ParquetLogReader> readers;
    private final Map<String, ConcurrentSkipListMap<Long, ChunkKey>> chunkIndex =
            new ConcurrentHashMap<>();
    private final Counter hits;
    private final Counter misses;
    private final Counter readAheads;
    private final Counter loads;
    private final AtomicLong cachedBytes = new AtomicLong();

    /** Offsets in a full chunk lately: how far ahead read-ahead looks, per chunk. */
    private final AtomicLong typicalSpan = new AtomicLong();

    private final int readAheadChunks;

    private final ScheduledExecutorService timer;
    private final long readTimeoutMs;
    private final ColdReadErrors errors;

    /** Offsets where a reader that just read a chunk will continue: marks sequential readers. */
    private final Cache<ChunkKey, Boolean> expectedNext;

    /** Rebuilds values stored once (typed only); null: reading such a row fails as corrupt. */
    private final io.tierlog.common.typed.ValueRebuilder rebuilder;

    ColdReader(
            ObjectStore store,
            ColdIndex index,
            Executor executor,
            int chunkBytes,
            boolean readAhead,
            int readAheadChunks,
            long cacheBytes,
            int metadataObjects,
            MeterRegistry registry,
            ScheduledExecutorService timer,
            java.time.Duration readTimeout,
            Time time,
            io.tierlog.common.typed.ValueRebuilder rebuilder) {
        this.rebuilder = rebuilder;
        this.store = store;
        this.timer = timer;
        this.readTimeoutMs = readTimeout.toMillis();
        this.errors = new ColdReadErrors(registry, time);
        this.index = index;
        this.executor = executor;
        this.chunkBytes = chunkBytes;
        this.readAhead = readAhead;
        this.readAheadChunks = readAheadChunks;
        this.expectedNext = Caffeine.newBuilder().maximumSize(100_000).build();
        this.chunks =
                Caffeine.newBuilder()
                        // Cache maintenance after close runs inline instead of being rejected.
                        .executor(
                                r -> {
                                    try {
                                        executor.execute(r);
                                    } catch (java.util.concurrent.RejectedExecutionException e) {
                                        r.run();
                                    }
                                })
                        .maximumWeight(Math.max(1, cacheBytes))
                        .<ChunkKey, Chunk>weigher((k, c) -> c.weight())
                        .removalListener(this::onRemoval)
                        .buildAsync();
        this.readers = Caffeine.newBuilder().maximumSize(metadataObjects).build();
        this.hits = registry.counter(MetricNames.COLD_CACHE_REQUESTS, "result", "hit");
        this.misses = registry.counter(MetricNames.COLD_CACHE_REQUESTS, "result", "miss");
        this.readAheads = registry.counter(MetricNames.COLD_READ_AHEAD);
        this.loads = registry.counter(MetricNames.COLD_CHUNK_LOADS);
        registry.gauge(
                MetricNames.COLD_CACHE_HIT_RATIO,
                this,
                r -> {
                    double h = r.hits.count();
                    double total = h + r.misses.count();
                    return total == 0 ? Double.NaN : h / total;
                });
        registry.gauge(MetricNames.COLD_CACHE_BYTES, cachedBytes);
    }

    private void onRemoval(ChunkKey key, Chunk chunk, RemovalCause cause) {
        if (key == null || chunk == null || chunk.records() == null) {
            return;
        }
        cachedBytes.addAndGet(-chunk.weight());
        chunkIndex.computeIfPresent(
                key.objectKey(),
                (k, m) -> {
                    m.remove(chunk.firstOffset(), key);
                    m.remove(key.startOffset(), key);
                    return m.isEmpty() ? null : m;
                });
    }

    /**
     * Reads batches from the batch holding {@code offset}, at most {@code maxBytes} unless the
     * first batch alone is larger, never past the end of the object holding {@code offset}, and
     * stopping before the first batch at or above {@code stopBefore} (the hot tier's start: where
     * both tiers hold an offset, hot wins).
     */
    CompletableFuture<TierRead.Cold> read(
            TopicPartition tp, long offset, int maxBytes, long stopBefore, long hw, long logStart) {
        TierRead.Cold cached = servedFromCache(tp, offset, maxBytes, stopBefore, hw, logStart);
        if (cached != null) {
            return CompletableFuture.completedFuture(cached);
        }
        AtomicReference<ColdObject> located = new AtomicReference<>();
        CompletableFuture<TierRead.Cold> f =
                attempt(tp, offset, maxBytes, stopBefore, hw, logStart, located)
                        .exceptionallyCompose(
                                e -> {
                                    Throwable cause = unwrap(e);
                                    if (!(cause instanceof ObjectNotFoundException)) {
                                        return CompletableFuture.failedFuture(cause);
                                    }
                                    // Retention may have removed the object since our
                                    // snapshot: look again once.
                                    index.invalidate(tp);
                                    return attempt(
                                            tp,
                                            offset,
                                            maxBytes,
                                            stopBefore,
                                            hw,
                                            logStart,
                                            located);
                                });
        f =
                f.thenCompose(
                        r ->
                                r.isEmpty()
                                                && r.nextOffset() > offset
                                                && r.nextOffset() < stopBefore
                                        ? read(
                                                tp,
                                                r.nextOffset(),
                                                maxBytes,
                                                stopBefore,
                                                hw,
                                                logStart)
                                        : CompletableFuture.completedFuture(r));
        return withDeadline(tp, offset, f, located)
                .exceptionallyCompose(
                        e ->
                                CompletableFuture.failedFuture(
                                        errors.failed(tp, offset, located.get(), e)));
    }

    /**
     * {@code f}, or a {@link TimeoutException} after {@code cold.read.timeout.ms}. The timeout
     * completes only the copy the caller sees: the shared chunk load goes on for other readers.
     */
    private CompletableFuture<TierRead.Cold> withDeadline(
            TopicPartition tp,
            long offset,
            CompletableFuture<TierRead.Cold> f,
            AtomicReference<ColdObject> located) {
        if (f.isDone()) {
            return f;
        }
        CompletableFuture<TierRead.Cold> out = new CompletableFuture<>();
        java.util.concurrent.ScheduledFuture<?> t;
        try {
            t =
                    timer.schedule(
                            () -> {
                                ColdObject o = located.get();
                                out.completeExceptionally(
                                        new TimeoutException(
                                                "cold read of "
                                                        + tp
                                                        + " at offset "
                                                        + offset
                                                        + (o == null
                                                                ? " (locating its object)"
                                                                : " from " + o.key())
                                                        + " not done within"
                                                        + " cold.read.timeout.ms="
                                                        + readTimeoutMs));
                            },
                            readTimeoutMs,
                            TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            return f; // closing: the log fails reads still in flight itself
        }
        f.whenComplete(
                (r, e) -> {
                    t.cancel(false);
                    if (e != null) {
                        out.completeExceptionally(e);
                    } else {
                        out.complete(r);
                    }
                });
        return out;
    }

    /**
     * A read whose object is in the cached catalog snapshot and whose chunk is loaded is served on
     * the caller's thread: it does no I/O (read-ahead it triggers loads on the executor), so the
     * hop to the cold-read executor would only cost. Null otherwise.
     */
    private TierRead.Cold servedFromCache(
            TopicPartition tp, long offset, int maxBytes, long stopBefore, long hw, long logStart) {
        Optional<ColdObject> obj = index.cached(tp).flatMap(s -> s.objectFor(offset));
        if (obj.isEmpty()) {
            return null;
        }
        Chunk chunk =
                lookup(obj.get().key(), offset)
                        .filter(CompletableFuture::isDone)
                        .map(CompletableFuture::join)
                        .filter(c -> c.covers(offset))
                        .orElse(null);
        if (chunk == null) {
            return null;
        }
        hits.increment();
        TierRead.Cold r = serve(tp, obj.get(), chunk, offset, maxBytes, stopBefore, hw, logStart);
        return r.isEmpty() && r.nextOffset() < stopBefore ? null : r;
    }

    /** One try: find the object holding {@code offset}, load its chunk, serve from it. */
    private CompletableFuture<TierRead.Cold> attempt(
            TopicPartition tp,
            long offset,
            int maxBytes,
            long stopBefore,
            long hw,
            long logStart,
            AtomicReference<ColdObject> located) {
        return CompletableFuture.supplyAsync(() -> locate(tp, offset), executor)
                .thenCompose(
                        obj ->
                                chunkFor(remember(located, obj), offset, maxBytes)
                                        .thenApply(
                                                c ->
                                                        serve(
                                                                tp,
                                                                obj,
                                                                c,
                                                                offset,
                                                                maxBytes,
                                                                stopBefore,
                                                                hw,
                                                                logStart)));
    }

    private static ColdObject remember(AtomicReference<ColdObject> located, ColdObject obj) {
        located.set(obj);
        return obj;
    }

    private ColdObject locate(TopicPartition tp, long offset) {
        try {
            ColdIndex.Snapshot s = index.snapshot(tp, Long.MAX_VALUE);
            Optional<ColdObject> o = s.objectFor(offset);
            if (o.isEmpty()) {
                s = index.refresh(tp);
                o = s.objectFor(offset);
            }
            if (o.isEmpty()) {
                throw new OffsetOutOfRangeException(
                        "Offset "
                                + offset
                                + " of "
                                + tp
                                + " is in neither tier (cold holds ["
                                + s.coldLogStartOffset()
                                + ", "
                                + s.coldHighWatermark()
                                + "))");
            }
            return o.get();
        } catch (CatalogException e) {
            throw new ColdReadException("catalog unavailable for " + tp + ": " + e.getMessage(), e);
        }
    }

    /** Preloads the chunk starting at {@code offset} of {@code obj} into the cache (no wait). */
    private void prefetch(ColdObject obj, long offset) {
        if (lookup(obj.key(), offset).isEmpty()) {
            readAheads.increment();
            start(obj, offset, chunkBytes);
        }
    }

    /**
     * The cached or loading chunk that holds (or, still loading, probably holds) {@code offset}:
     * the one with the greatest start at or below it, if it is loaded and covers the offset, or is
     * loading and starts less than a typical chunk span below it.
     */
    private Optional<CompletableFuture<Chunk>> lookup(String objectKey, long offset) {
        ConcurrentSkipListMap<Long, ChunkKey> m = chunkIndex.get(objectKey);
        if (m == null) {
            return Optional.empty();
        }
        Map.Entry<Long, ChunkKey> e = m.floorEntry(offset);
        if (e == null) {
            return Optional.empty();
        }
        CompletableFuture<Chunk> f = chunks.getIfPresent(e.getValue());
        if (f == null) {
            return Optional.empty();
        }
        if (f.isDone()) {
            return f.join().covers(offset) ? Optional.of(f) : Optional.empty();
        }
        long span = typicalSpan.get();
        return span > 0 && offset - e.getKey() < span ? Optional.of(f) : Optional.empty();
    }

    /** Starts (or joins) the single-flight load of the chunk of {@code obj} from {@code offset}. */
    private CompletableFuture<Chunk> start(ColdObject obj, long offset, int bytes) {
        ChunkKey key = new ChunkKey(obj.key(), offset);
        CompletableFuture<Chunk> f = chunks.getIfPresent(key);
        if (f != null && f.isDone() && f.join().records() == null) {
            chunks.asMap().remove(key, f); // a failed load: try again
        }
        chunkIndex.computeIfAbsent(obj.key(), k -> new ConcurrentSkipListMap<>()).put(offset, key);
        return chunks.get(key, k -> load(obj, k.startOffset(), bytes));
    }

    /**
     * Bytes a read that misses the cache decodes: enough for the fetch (at least 1 MiB), not a
     * whole chunk, so that the first batch of a seek arrives fast; a reader that goes on reading
     * sequentially gets whole chunks from read-ahead.
     */
    private int missBytes(int maxBytes) {
        return Math.min(chunkBytes, Math.max(maxBytes, MIN_MISS_BYTES));
    }

    private CompletableFuture<Chunk> chunkFor(ColdObject obj, long offset, int maxBytes) {
        Optional<CompletableFuture<Chunk>> found = lookup(obj.key(), offset);
        CompletableFuture<Chunk> f;
        if (found.isPresent()) {
            hits.increment();
            f = found.get();
        } else {
            misses.increment();
            f = start(obj, offset, missBytes(maxBytes));
        }
        return f.thenCompose(
                c -> {
                    if (c.covers(offset)) {
                        return CompletableFuture.completedFuture(c);
                    }
                    if (c.records() != null) {
                        // A chunk loaded ahead did not reach this far: load from here.
                        return start(obj, offset, missBytes(maxBytes))
                                .thenCompose(c2 -> checked(obj, offset, c2));
                    }
                    return checked(obj, offset, c);
                });
    }

    private CompletableFuture<Chunk> checked(ColdObject obj, long offset, Chunk c) {
        if (c.covers(offset)) {
            return CompletableFuture.completedFuture(c);
        }
        // Forget the failure so the next reader tries again.
        ChunkKey key = new ChunkKey(obj.key(), offset);
        CompletableFuture<Chunk> f = chunks.getIfPresent(key);
        if (f != null && f.isDone() && f.join() == c) {
            chunks.asMap().remove(key, f);
        }
        return CompletableFuture.failedFuture(
                c.error() != null
                        ? c.error()
                        : new ColdReadException(
                                "chunk of " + obj.key() + " does not hold offset " + offset, null));
    }

    private Chunk load(ColdObject obj, long offset, int bytes) {
        loads.increment();
        try {
            ParquetLogReader reader =
                    readers.get(
                            obj.key(),
                            k -> new ParquetLogReader(store, k, obj.sizeInBytes(), rebuilder));
            ColdBatches batches = reader.readBatches(offset, bytes);
            MemoryRecords records = batches.records();
            long first = -1;
            long next = offset;
            int pos = 0;
            int indexed = -INDEX_INTERVAL;
            int entries = 0;
            int capacity = records.sizeInBytes() / INDEX_INTERVAL + 1;
            long[] indexBase = new long[capacity];
            int[] indexPos = new int[capacity];
            for (MutableRecordBatch b : records.batches()) {
                if (first < 0) {
                    first = b.baseOffset();
                }
                if (pos - indexed >= INDEX_INTERVAL) {
                    indexBase[entries] = b.baseOffset();
                    indexPos[entries++] = pos;
                    indexed = pos;
                }
                next = b.lastOffset() + 1;
                pos += b.sizeInBytes();
            }
            if (first < 0) {
                if (offset < obj.firstOffset() || offset > obj.lastOffset()) {
                    throw new ObjectCorruptException(
                            obj.key(), "object holds no batch at offset " + offset, null);
                }
                // The object's tail past offset was compacted away: nothing until its end.
                first = offset;
                next = obj.nextOffset();
            }
            // Offsets between offset and the first batch were compacted away: covered too.
            first = Math.min(first, Math.max(offset, obj.firstOffset()));
            indexBase = java.util.Arrays.copyOf(indexBase, entries);
            indexPos = java.util.Arrays.copyOf(indexPos, entries);
            Chunk c =
                    new Chunk(
                            records, first, next, null, indexBase, indexPos, batches.abortedRuns());
            cachedBytes.addAndGet(records.sizeInBytes());
            if (records.sizeInBytes() >= chunkBytes / 2) {
                typicalSpan.set(next - first);
            }
            ChunkKey key = new ChunkKey(obj.key(), offset);
            chunkIndex
                    .computeIfAbsent(obj.key(), k -> new ConcurrentSkipListMap<>())
                    .put(first, key);
            return c;
        } catch (IOException | RuntimeException e) {
            if (e instanceof ObjectNotFoundException) {
                readers.invalidate(obj.key());
            }
            return Chunk.failed(e);
        }
    }

    private TierRead.Cold serve(
            TopicPartition tp,
            ColdObject obj,
            Chunk chunk,
            long offset,
            int maxBytes,
            long stopBefore,
            long hw,
            long logStart) {
        ByteBuffer buf = chunk.records().buffer();
        int pos = chunk.scanStart(offset);
        ByteBuffer from = buf.duplicate();
        from.position(buf.position() + pos);
        int start = -1;
        int end = -1;
        long next = offset;
        for (MutableRecordBatch b : MemoryRecords.readableRecords(from.slice()).batches()) {
            int size = b.sizeInBytes();
            if (start < 0) {
                if (b.lastOffset() >= offset) {
                    start = pos;
                    end = pos + size;
                    next = b.lastOffset() + 1;
                }
                pos += size;
                continue;
            }
            if (b.baseOffset() >= stopBefore || end - start + size > maxBytes) {
                break;
            }
            end += size;
            next = b.lastOffset() + 1;
        }
        if (start < 0) {
            if (chunk.records().sizeInBytes() > 0 && chunk.nextOffset() <= offset) {
                // Cannot happen: the chunk covers offset. Fail loudly rather than loop.
                throw new IllegalStateException(
                        "chunk of " + obj.key() + " does not cover offset " + offset);
            }
            // A compacted object's tail without batches: the reader continues after the object.
            return new TierRead.Cold(
                    MemoryRecords.EMPTY, obj.key(), chunk.nextOffset(), hw, logStart);
        }
        ByteBuffer slice = buf.duplicate();
        slice.position(buf.position() + start).limit(buf.position() + end);
        MemoryRecords records = MemoryRecords.readableRecords(slice.slice());
        if (readAhead && next < stopBefore) {
            readAhead(tp, obj, chunk, offset, next, stopBefore);
        }
        // the list is the chunk's: the caller sets the partition's real last stable offset
        return new TierRead.Cold(
                records,
                obj.key(),
                next,
                hw,
                logStart,
                hw,
                chunk.abortedTransactions(offset, next));
    }

    /**
     * A reader that continues where it stopped (or reached the end of a chunk) is sequential: load
     * the next {@code cold.read.ahead.chunks} chunks, at estimated offsets (a chunk loaded from any
     * offset starts with the batch holding it, so estimates need no batch boundaries), in parallel
     * on the cold-read executor; at the end of an object, the start of the next one.
     */
    private void readAhead(
            TopicPartition tp, ColdObject obj, Chunk chunk, long offset, long next, long stop) {
        boolean sequential =
                next == chunk.nextOffset()
                        || expectedNext.asMap().remove(new ChunkKey(obj.key(), offset)) != null;
        if (!sequential) {
            expectedNext.put(new ChunkKey(obj.key(), next), Boolean.TRUE);
            return;
        }
        expectedNext.put(new ChunkKey(obj.key(), next), Boolean.TRUE);
        // Offsets a whole chunk spans, from this chunk (scaled up if it was a small miss load).
        long span = chunk.nextOffset() - chunk.firstOffset();
        if (chunk.weight() < chunkBytes / 2) {
            span = span * chunkBytes / Math.max(1, chunk.weight());
        }
        span = Math.max(1, span);
        long at = chunk.nextOffset();
        for (int i = 0; i < readAheadChunks && at < stop; i++) {
            if (at <= obj.lastOffset()) {
                prefetch(obj, at);
                at += span;
            } else {
                index.cached(tp)
                        .flatMap(s -> s.next(obj))
                        .filter(o -> o.firstOffset() < stop)
                        .ifPresent(o -> prefetch(o, o.firstOffset()));
                break;
            }
        }
    }

    static Throwable unwrap(Throwable e) {
        while ((e instanceof CompletionException
                        || e instanceof java.util.concurrent.ExecutionException)
                && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    static RuntimeException translate(Throwable e) {
        Throwable cause = unwrap(e);
        if (cause instanceof OffsetOutOfRangeException o) {
            return o;
        }
        if (cause instanceof ColdReadException c) {
            return c;
        }
        return new ColdReadException("cold read failed: " + cause, cause);
    }

    /** Drops every cached chunk and reader of {@code objectKey} (deleted objects). */
    void forget(String objectKey) {
        readers.invalidate(objectKey);
        ConcurrentSkipListMap<Long, ChunkKey> m = chunkIndex.remove(objectKey);
        if (m != null) {
            m.values().forEach(k -> chunks.synchronous().invalidate(k));
        }
        chunks.synchronous().asMap().keySet().removeIf(k -> k.objectKey().equals(objectKey));
    }
}
