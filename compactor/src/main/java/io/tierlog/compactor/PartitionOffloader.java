package io.tierlog.compactor;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.CatalogException;
import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.CommitConflictException;
import io.tierlog.catalog.CommitFailedException;
import io.tierlog.catalog.CommitResult;
import io.tierlog.catalog.CommitStateUnknownException;
import io.tierlog.catalog.PartitionState;
import io.tierlog.cold.ColdTierOptions;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.ObjectKeys;
import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.ParquetLogWriter;
import io.tierlog.cold.TxnState;
import io.tierlog.cold.WrittenObject;
import io.tierlog.common.Time;
import io.tierlog.hot.AbortedTxn;
import io.tierlog.hot.OngoingTxn;
import io.tierlog.hot.SegmentInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Offloads one partition: every closed segment beyond the catalog's cold high watermark becomes
 * Parquet objects of about {@code offload.target.object.bytes} of segment bytes each (small
 * segments merge, large ones split on batch boundaries).
 *
 * <p>Per object, in this fixed order with the commit point last: write the Parquet file in the temp
 * dir; upload it under a fresh unique key; verify the stored size; commit to the catalog. A killed
 * process therefore leaves at most an uncommitted object (an orphan for the sweeper) and a temp
 * file (deleted on restart), and a restart resumes from the catalog's watermark: nothing is lost or
 * duplicated. On a known commit failure the object is deleted; once any attempt's outcome was
 * unknown it never is (the sweeper decides later, against the catalog). An upload older than half
 * the orphan grace period is never committed, so the sweeper cannot delete an object a slow commit
 * is about to reference.
 *
 * <p>Transactions: a closed segment is offloaded only when its next offset is at or below the
 * partition's last stable offset (Kafka's rule for remote storage: whole segments, no trailing
 * object cut at the LSO), so no batch of an open transaction ever reaches the cold tier; each
 * transactional batch is written with its transaction's outcome ({@code batch_txn_state}): aborted
 * iff the source lists an aborted transaction of its producer around its base offset, a marker by
 * its own type. A segment held back names the transaction in the lag ({@link
 * PartitionLag#heldBack}).
 *
 * <p>Object ranges: an object covers from the cold high watermark (or, for a partition's first
 * object, its first batch) to its last batch's last offset, so offsets a Kafka log cleaner removed
 * between batches never open a gap in the catalog.
 *
 * <p>Not thread-safe: the compactor runs one offloader per partition at a time.
 */
final class PartitionOffloader {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionOffloader.class);

    /** Everything an offloader needs, shared by all of them. */
    record Env(
            SegmentSource source,
            Catalog catalog,
            ObjectStore store,
            CompactorOptions options,
            ColdTierOptions coldOptions,
            Optional<UploadRateLimiter> rateLimiter,
            Retrier retrier,
            Time time,
            OffloadListener listener,
            java.util.function.Supplier<io.tierlog.catalog.CatalogGuard> guard,
            java.util.function.Supplier<TypedColumnsSource> typed) {

        /** Waits for the upload rate limiter's leave to write {@code bytes} (if there is one). */
        void throttle(long bytes) {
            rateLimiter.ifPresent(
                    l -> {
                        try {
                            l.acquire(bytes);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
        }

        /**
         * Uploads {@code file} as {@code key} with retries, each attempt verified by the stored
         * size (a replacement object of a compaction or merge).
         */
        void uploadVerified(String key, java.nio.file.Path file, long size) throws Exception {
            retrier.run(
                    "upload of " + key,
                    () -> {
                        store.put(key, file);
                        io.tierlog.cold.ObjectInfo info = store.head(key);
                        if (info.size() != size) {
                            throw new java.io.IOException(
                                    "verification of "
                                            + key
                                            + " failed: stored size "
                                            + info.size()
                                            + " != local size "
                                            + size);
                        }
                        return null;
                    },
                    Retrier::io);
        }
    }

    /** What one partition pass did. */
    record Outcome(long objects, long records, long sourceBytes, long objectBytes) {
        static final Outcome NONE = new Outcome(0, 0, 0, 0);

        /** This outcome and one more committed object. */
        Outcome plus(ObjectReport r) {
            return new Outcome(
                    objects + 1,
                    records + r.recordCount(),
                    sourceBytes + r.sourceBytes(),
                    objectBytes + r.objectBytes());
        }
    }

    /** The partition cannot be offloaded as it is (reported in its lag, retried next pass). */
    static final class OffloadException extends IOException {
        private static final long serialVersionUID = 1L;

        OffloadException(String message) {
            super(message);
        }

        OffloadException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final Env env;
    private final TopicPartition tp;
    private final Backoff backoff;

    PartitionOffloader(Env env, TopicPartition tp) {
        this.env = env;
        this.tp = tp;
        this.backoff = new Backoff(env.options().retryBackoff(), env.options().retryBackoffMax());
    }

    /** The pending work of the partition, as seen now. */
    record Plan(PartitionState state, long start, List<SegmentInfo> pending, PartitionLag lag) {}

    Plan plan() throws IOException {
        PartitionState state = env.catalog().partitionState(tp.topic(), tp.partition());
        List<SegmentInfo> all = env.source().segments(tp);
        List<SegmentInfo> closed = new ArrayList<>();
        long activeBytes = 0;
        for (SegmentInfo s : all) {
            if (s.closed()) {
                closed.add(s);
            } else {
                activeBytes += s.sizeInBytes();
            }
        }
        long start;
        if (state.empty()) {
            start = closed.isEmpty() ? 0 : closed.get(0).baseOffset();
        } else {
            start = state.coldHighWatermark();
        }
        List<SegmentInfo> pending = new ArrayList<>();
        long pendingBytes = 0;
        long lso = Long.MAX_VALUE;
        Optional<String> heldBack = Optional.empty();
        for (SegmentInfo s : closed) {
            if (s.nextOffset() > start && s.sizeInBytes() > 0) {
                if (lso == Long.MAX_VALUE) {
                    lso = env.source().lastStableOffset(tp);
                }
                if (s.nextOffset() > lso) {
                    heldBack = Optional.of(heldBackReason(lso));
                    break; // segments are contiguous: every later one is above the LSO too
                }
                pending.add(s);
                long offsets = Math.max(1, s.nextOffset() - s.baseOffset());
                long from = Math.max(start, s.baseOffset());
                pendingBytes += s.sizeInBytes() * (s.nextOffset() - from) / offsets;
            }
        }
        long closedEnd = closed.isEmpty() ? start : closed.get(closed.size() - 1).nextOffset();
        PartitionLag lag =
                new PartitionLag(
                        tp,
                        state.coldHighWatermark(),
                        closedEnd,
                        Math.max(0, closedEnd - start),
                        pendingBytes,
                        activeBytes,
                        -1,
                        Optional.empty(),
                        heldBack);
        if (!state.empty() && !pending.isEmpty() && pending.get(0) == closed.get(0)) {
            SegmentInfo first = pending.get(0);
            if (first.baseOffset() > start) {
                throw new OffloadException(
                        tp
                                + ": offsets "
                                + start
                                + ".."
                                + (first.baseOffset() - 1)
                                + " are neither in the cold tier nor in the log (it starts at "
                                + first.baseOffset()
                                + "); the catalog refuses the gap");
            }
        }
        return new Plan(state, start, pending, lag);
    }

    private String heldBackReason(long lso) throws IOException {
        Optional<OngoingTxn> open = env.source().oldestOpenTransaction(tp);
        if (open.isPresent() && open.get().firstOffset() <= lso) {
            return "open transaction of producer "
                    + open.get().producerId()
                    + " since offset "
                    + open.get().firstOffset();
        }
        return "last stable offset " + lso + " (a transaction's marker is not yet stable)";
    }

    /**
     * The producers' aborted transactions of the offsets {@code plan} will offload, by producer:
     * complete for them, since they all lie below the last stable offset.
     */
    private Map<Long, List<AbortedTxn>> abortedOf(Plan plan) throws IOException {
        Map<Long, List<AbortedTxn>> out = new HashMap<>();
        if (plan.pending().isEmpty()) {
            return out;
        }
        long upTo = plan.pending().get(plan.pending().size() - 1).nextOffset();
        for (AbortedTxn a : env.source().abortedTransactions(tp, plan.start(), upTo)) {
            out.computeIfAbsent(a.producerId(), p -> new ArrayList<>()).add(a);
        }
        return out;
    }

    /** The outcome of {@code batch}'s transaction. */
    static TxnState txnState(RecordBatch batch, Map<Long, List<AbortedTxn>> aborted) {
        if (!batch.isTransactional()) {
            return TxnState.NONE;
        }
        if (batch.isControlBatch()) {
            return TxnState.ofMarker(batch);
        }
        for (AbortedTxn a : aborted.getOrDefault(batch.producerId(), List.of())) {
            if (a.firstOffset() <= batch.baseOffset() && batch.baseOffset() <= a.lastOffset()) {
                return TxnState.ABORTED;
            }
        }
        return TxnState.COMMITTED;
    }

    /** Offloads what {@code plan} lists; stops early (without error) when the compactor stops. */
    Outcome offload(Plan plan) throws Exception {
        long target = env.options().targetObjectBytes();
        long start = plan.start();
        boolean first = plan.state().empty();
        Outcome done = Outcome.NONE;
        ObjectBuilder current = null;
        Map<Long, List<AbortedTxn>> aborted = abortedOf(plan);
        try {
            for (SegmentInfo segment : plan.pending()) {
                try (BatchStream batches = env.source().batches(segment)) {
                    RecordBatch batch;
                    while ((batch = batches.next()) != null) {
                        if (env.retrier().isStopped()) {
                            return done;
                        }
                        if (batch.lastOffset() < start) {
                            // already in the cold tier; a corrupt hot copy is read from there
                            if (!batch.isValid()) {
                                env.source()
                                        .reportCorruption(
                                                tp,
                                                batch.baseOffset(),
                                                batch.lastOffset() + 1,
                                                "offload found a CRC mismatch in "
                                                        + segment.logFile()
                                                        + " (the cold tier holds a copy)");
                            }
                            continue;
                        }
                        if (batch.baseOffset() < start) {
                            throw new OffloadException(
                                    tp
                                            + ": batch "
                                            + batch.baseOffset()
                                            + ".."
                                            + batch.lastOffset()
                                            + " straddles the cold high watermark "
                                            + start);
                        }
                        if (current != null && current.sourceBytes + batch.sizeInBytes() > target) {
                            ObjectReport r = current.finishAndCommit();
                            current = null;
                            done = done.plus(r);
                            start = r.lastOffset() + 1;
                            first = false;
                        }
                        if (current == null) {
                            current = new ObjectBuilder(first ? batch.baseOffset() : start);
                        }
                        try {
                            current.append(batch, txnState(batch, aborted));
                        } catch (org.apache.kafka.common.KafkaException e) {
                            String why =
                                    "batch "
                                            + batch.baseOffset()
                                            + ".."
                                            + batch.lastOffset()
                                            + " of "
                                            + segment.logFile()
                                            + " is corrupt and not in the cold tier: "
                                            + e.getMessage();
                            env.source()
                                    .reportCorruption(
                                            tp, batch.baseOffset(), batch.lastOffset() + 1, why);
                            throw new OffloadException(tp + ": " + why, e);
                        }
                    }
                }
            }
            if (current != null) {
                done = done.plus(current.finishAndCommit());
                current = null;
            }
            return done;
        } finally {
            if (current != null) {
                current.abort();
            }
        }
    }

    /** One object in the making: a temp Parquet file being filled with batches. */
    private final class ObjectBuilder {
        private final long firstOffset;
        private final long startNanos = System.nanoTime();
        private final Path file;
        private final ParquetLogWriter writer;
        private long sourceBytes;

        ObjectBuilder(long firstOffset) throws IOException {
            this.firstOffset = firstOffset;
            this.file = TempFiles.newFile(env.options().tmpDir());
            this.writer =
                    ParquetLogWriter.open(
                            file,
                            tp.topic(),
                            tp.partition(),
                            env.coldOptions(),
                            env.typed().get().forObject(tp.topic()));
        }

        void append(RecordBatch batch, TxnState txnState) throws IOException {
            writer.append(batch, txnState);
            sourceBytes += batch.sizeInBytes();
        }

        void abort() {
            try {
                writer.close();
            } catch (IOException e) {
                LOG.debug("closing an aborted Parquet writer failed", e);
            }
            deleteTemp();
        }

        private void deleteTemp() {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                LOG.warn("could not delete temporary file {}: {}", file, e.toString());
            }
        }

        ObjectReport finishAndCommit() throws Exception {
            try {
                WrittenObject w = writer.finish();
                long size = Files.size(file);
                String key =
                        ObjectKeys.newKey(
                                env.coldOptions().prefix(),
                                tp.topic(),
                                tp.partition(),
                                firstOffset,
                                w.lastOffset());
                upload(key, size);
                long uploadedAt = env.time().milliseconds();
                ColdObject obj =
                        new ColdObject(
                                tp.topic(),
                                tp.partition(),
                                firstOffset,
                                w.lastOffset(),
                                w.minTimestamp(),
                                w.maxTimestamp(),
                                w.recordCount(),
                                size,
                                key,
                                Instant.ofEpochMilli(uploadedAt));
                CommitResult result = commit(obj, uploadedAt);
                ObjectReport report =
                        new ObjectReport(
                                tp,
                                firstOffset,
                                w.lastOffset(),
                                w.recordCount(),
                                sourceBytes,
                                size,
                                key,
                                System.nanoTime() - startNanos,
                                result);
                LOG.debug("committed {}", report);
                env.listener().onObjectCommitted(report);
                env.listener().onTypedColumns(tp, writer.typedCounts());
                return report;
            } finally {
                deleteTemp();
            }
        }

        private void upload(String key, long size) throws Exception {
            if (env.rateLimiter().isPresent()) {
                env.rateLimiter().get().acquire(size);
            }
            env.retrier()
                    .run(
                            "upload of " + key,
                            () -> {
                                env.store().put(key, file);
                                ObjectInfo info = env.store().head(key);
                                if (info.size() != size) {
                                    throw new IOException(
                                            "verification of "
                                                    + key
                                                    + " failed: stored size "
                                                    + info.size()
                                                    + " != local size "
                                                    + size);
                                }
                                return null;
                            },
                            Retrier::io);
        }

        private CommitResult commit(ColdObject obj, long uploadedAt) throws Exception {
            long maxAge = env.options().orphanGrace().toMillis() / 2;
            long deadline = env.time().milliseconds() + env.options().retryTimeout().toMillis();
            boolean outcomeUnknown = false;
            for (int attempt = 1; ; attempt++) {
                if (env.time().milliseconds() - uploadedAt > maxAge) {
                    throw new OffloadException(
                            "gave up committing "
                                    + obj.key()
                                    + ": uploaded longer ago than half of"
                                    + " offload.orphan.grace.ms; left for the orphan sweeper");
                }
                io.tierlog.catalog.CatalogGuard g = env.guard().get();
                if (g != null && !g.allows("commit of " + obj.key())) {
                    if (!outcomeUnknown) {
                        deleteObject(obj.key());
                    }
                    throw new OffloadException(
                            tp + ": catalog not usable, commit of " + obj.key() + " refused");
                }
                RuntimeException failure;
                try {
                    return env.catalog().commit(obj);
                } catch (CommitConflictException e) {
                    // Conflicts are decided after the key check, so the catalog does not reference
                    // the object; after an unknown outcome the sweeper still gets the last word.
                    if (!outcomeUnknown) {
                        deleteObject(obj.key());
                    }
                    throw new OffloadException(
                            tp + ": another writer got there first: " + e.getMessage(), e);
                } catch (CommitStateUnknownException e) {
                    outcomeUnknown = true;
                    failure = e;
                } catch (CommitFailedException e) {
                    if (e.getCause() == null) {
                        // Refused by the catalog's rules (unknown topic, key reused): permanent.
                        if (!outcomeUnknown) {
                            deleteObject(obj.key());
                        }
                        throw e;
                    }
                    failure = e; // the database failed before the commit point: retry
                } catch (CatalogException e) {
                    outcomeUnknown = true;
                    failure = e;
                }
                if (env.time().milliseconds() >= deadline || env.retrier().isStopped()) {
                    if (!outcomeUnknown) {
                        deleteObject(obj.key());
                    }
                    throw new OffloadException(
                            "commit of " + obj.key() + " failed " + attempt + " times", failure);
                }
                long wait = backoff.delayMs(attempt);
                LOG.warn(
                        "commit of {} failed (attempt {}{}), retrying in {} ms: {}",
                        obj.key(),
                        attempt,
                        outcomeUnknown ? ", outcome unknown" : "",
                        wait,
                        failure.toString());
                env.retrier().pause(wait);
            }
        }

        private void deleteObject(String key) {
            try {
                env.retrier()
                        .run(
                                "delete of " + key,
                                () -> {
                                    env.store().delete(key);
                                    return null;
                                },
                                Retrier::io);
            } catch (Exception e) {
                LOG.warn(
                        "could not delete uncommitted object {} (the orphan sweeper will): {}",
                        key,
                        e.toString());
            }
        }
    }
}
