package io.tierlog.hot;

import static io.tierlog.hot.RecordBatchLayout.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecords.RecordFilter.BatchRetention;
import org.apache.kafka.common.record.internal.MemoryRecords.RecordFilter.BatchRetentionResult;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cleaning of one partition, Kafka's {@code Cleaner.doClean}: builds the {@link OffsetMap} over
 * the dirty section {@code [firstDirty, firstUncleanable)} (stopping at a segment boundary when the
 * map would overflow, so the next cleaning starts there; a first segment too big for the map is
 * mapped partially, as Kafka does), then recopies every closed segment from the log start to the
 * end of the mapped range, in groups that fit {@code segment.bytes} and the index size, keeping a
 * record iff:
 *
 * <ul>
 *   <li>it lies past the map's last offset, or
 *   <li>it has a key, its offset is the latest the map holds for the key, and it has a value or is
 *       a tombstone still needed: its batch has no delete horizon yet (the first cleaning gives it
 *       one: now + {@code delete.retention.ms}, KIP-534), the horizon has not passed, or the {@link
 *       TombstoneGate} forbids removing tombstones of this partition now.
 * </ul>
 *
 * Records without a key are dropped (append refuses them on a compacted topic). Transactions follow
 * Kafka ({@link CleanerTxns}): the cleaned range ends at the last stable offset ({@link
 * LogToClean}); batches of aborted transactions (found through the txn indexes) are dropped and
 * never mapped; a marker goes only once its transaction has no data left and its delete horizon
 * ({@code delete.retention.ms}) passed; the cleaned segment's {@code .txnindex} keeps the aborted
 * transactions that still have data. A producer's last batch (or, with none, its last marker) is
 * kept, emptied of removed records, so the producer's sequence survives a reopen. Batches keep
 * their offsets, timestamps, headers, attributes, producer id, epoch and sequence; a batch that
 * lost records is rebuilt in its own codec (Kafka's {@code MemoryRecords.filterTo}, whose record
 * filter this class supplies).
 *
 * <p>Not thread-safe: one per cleaner thread; the caller holds the partition's {@link
 * PartitionLog#tryExclusive() exclusion}.
 */
final class Cleaner {
    private static final Logger LOG = LoggerFactory.getLogger(Cleaner.class);

    /** Bytes read from a segment at a time (Kafka's {@code log.cleaner.io.buffer.size} order). */
    static final int READ_BUFFER_BYTES = 512 * 1024;

    private final OffsetMap map;
    private final Throttler throttler;
    private final BooleanSupplier stopped;
    private final BufferSupplier decompression = BufferSupplier.create();
    private ByteBuffer readBuffer = ByteBuffer.allocate(READ_BUFFER_BYTES);
    private ByteBuffer writeBuffer = ByteBuffer.allocate(READ_BUFFER_BYTES);

    /** What one cleaning did. */
    record Result(
            long endOffset,
            long bytesRead,
            long bytesWritten,
            long recordsRead,
            long recordsRetained,
            int groups,
            double mapUtilization) {}

    /** The cleaning stopped because its thread is stopping. */
    static final class AbortedException extends Exception {
        private static final long serialVersionUID = 1L;

        AbortedException() {
            super("cleaning aborted");
        }
    }

    Cleaner(OffsetMap map, Throttler throttler, BooleanSupplier stopped) {
        this.map = map;
        this.throttler = throttler;
        this.stopped = stopped;
    }

    /**
     * Cleans {@code log} up to at most {@code firstUncleanable}.
     *
     * @return what was done; {@code endOffset} is the new first dirty offset (the cleaner
     *     checkpoint), or {@code firstDirty} when nothing could be mapped
     */
    Result clean(
            PartitionLog log,
            long firstDirty,
            long firstUncleanable,
            boolean mayDropTombstones,
            long now)
            throws IOException, InterruptedException, AbortedException {
        LogConfig config = log.config();
        Counters c = new Counters();
        long end = buildOffsetMap(log, firstDirty, firstUncleanable, c);
        if (end <= firstDirty) {
            return new Result(firstDirty, c.read, 0, 0, 0, 0, map.utilization());
        }
        c.mapped = true;
        Map<Long, ProducerEntry> producerLast = log.lastOffsetsOfProducers();
        CleanerTxns txns = new CleanerTxns();
        Filter filter =
                new Filter(
                        now,
                        config.deleteRetentionMs(),
                        map,
                        producerLast,
                        mayDropTombstones,
                        txns);
        int groups = 0;
        for (List<LogSegment> group : groupSegmentsBySize(log.segmentArray(), end, config)) {
            checkDone();
            if (cleanGroup(log, group.toArray(new LogSegment[0]), filter, config, c)) {
                groups++;
            }
        }
        return new Result(
                end, c.read, c.written, filter.read, filter.retained, groups, map.utilization());
    }

    private static final class Counters {
        long read;
        long written;
        boolean mapped;
    }

    // ---------------------------------------------------------------- offset map

    /** Maps the dirty section; returns the offset up to which every key is mapped. */
    private long buildOffsetMap(PartitionLog log, long firstDirty, long upper, Counters c)
            throws IOException, InterruptedException, AbortedException {
        map.clear();
        LogSegment[] segs = log.segmentArray();
        CleanerTxns txns = new CleanerTxns();
        txns.addAborted(TxnMarkers.collect(segs, firstDirty, upper));
        long end = firstDirty;
        boolean any = false;
        for (int i = 0; i < segs.length - 1; i++) {
            LogSegment s = segs[i];
            long segEnd = Math.max(s.nextOffset(), segs[i + 1].baseOffset);
            if (segEnd <= firstDirty) {
                continue;
            }
            if (s.baseOffset >= upper) {
                break;
            }
            long from = Math.max(s.baseOffset, firstDirty);
            // records in the segment are at most its offsets: stop before a segment that might
            // not fit, so the next cleaning resumes on a segment boundary
            if (any && map.size() + (Math.min(segEnd, upper) - from) > map.maxEntries()) {
                break;
            }
            any = true;
            long mappedTo = mapSegment(s, firstDirty, upper, c, txns);
            if (mappedTo >= 0) {
                LOG.debug("{}: offset map full in segment {}", log.topicPartition(), s.baseOffset);
                return mappedTo;
            }
            end = Math.min(segEnd, upper);
        }
        return end;
    }

    /** Puts the segment's keys; returns -1 when all fit, else the offset mapping stopped at. */
    private long mapSegment(LogSegment s, long firstDirty, long upper, Counters c, CleanerTxns txns)
            throws IOException, InterruptedException, AbortedException {
        long[] full = {-1};
        forEachChunk(
                s,
                c,
                records -> {
                    for (MutableRecordBatch batch : records.batches()) {
                        if (batch.lastOffset() < firstDirty) {
                            continue;
                        }
                        if (batch.baseOffset() >= upper) {
                            return false;
                        }
                        // an aborted batch's keys must not hide the committed values before it
                        if (txns.onBatch(batch) || batch.isControlBatch()) {
                            continue;
                        }
                        try (CloseableIterator<Record> it =
                                batch.streamingIterator(decompression)) {
                            while (it.hasNext()) {
                                Record r = it.next();
                                if (r.offset() < firstDirty || !r.hasKey()) {
                                    continue;
                                }
                                if (r.offset() >= upper) {
                                    return false;
                                }
                                if (map.isFull()) {
                                    full[0] = r.offset();
                                    return false;
                                }
                                map.put(r.key(), r.offset());
                            }
                        }
                    }
                    return true;
                });
        return full[0];
    }

    // ---------------------------------------------------------------- grouping

    /**
     * Kafka's {@code groupSegmentsBySize}: consecutive closed segments below {@code end} whose
     * bytes together fit {@code segment.bytes}, whose index entries fit {@code segment.index.bytes}
     * and whose offsets fit a 32-bit delta from the group's base.
     */
    static List<List<LogSegment>> groupSegmentsBySize(
            LogSegment[] segs, long end, LogConfig config) {
        List<List<LogSegment>> groups = new ArrayList<>();
        int i = 0;
        int closed = segs.length - 1;
        while (i < closed && segs[i].baseOffset < end) {
            List<LogSegment> g = new ArrayList<>();
            LogSegment first = segs[i];
            g.add(first);
            long bytes = first.size();
            long offsetEntries = first.offsetIndex().entries();
            long timeEntries = first.timeIndex().entries();
            i++;
            while (i < closed && segs[i].baseOffset < end) {
                LogSegment s = segs[i];
                long groupEnd = Math.max(s.nextOffset(), segs[i + 1].baseOffset) - 1;
                if (bytes + s.size() > config.segmentBytes()
                        || (offsetEntries + s.offsetIndex().entries()) * 8
                                > config.segmentIndexBytes()
                        || (timeEntries + s.timeIndex().entries()) * 12 > config.segmentIndexBytes()
                        || groupEnd - first.baseOffset > Integer.MAX_VALUE) {
                    break;
                }
                g.add(s);
                bytes += s.size();
                offsetEntries += s.offsetIndex().entries();
                timeEntries += s.timeIndex().entries();
                i++;
            }
            groups.add(g);
        }
        return groups;
    }

    // ---------------------------------------------------------------- cleaning

    /** Writes the group's cleaned segment and swaps it in; false when the log changed meanwhile. */
    private boolean cleanGroup(
            PartitionLog log, LogSegment[] group, Filter filter, LogConfig config, Counters c)
            throws IOException, InterruptedException, AbortedException {
        long base = group[0].baseOffset;
        LogSegment[] now = log.segmentArray();
        LogSegment after = null;
        for (int i = 0; i + 1 < now.length; i++) {
            if (now[i] == group[group.length - 1]) {
                after = now[i + 1];
            }
        }
        if (after == null) {
            return false;
        }
        long groupEnd = Math.max(group[group.length - 1].nextOffset(), after.baseOffset);
        CleanedSegment cleaned = CleanedSegment.create(log.dir(), base, config, log.openFiles());
        boolean swapped = false;
        try {
            long[] last = {-1, -1, -1}; // the group's last batch: base offset, last offset, max ts
            filter.txns.startSegment();
            LogSegment[] all = log.segmentArray();
            for (int k = 0; k < group.length; k++) {
                LogSegment s = group[k];
                long upTo = k + 1 < group.length ? group[k + 1].baseOffset : groupEnd;
                // the whole segment's range: its cleaned index is rebuilt entirely
                filter.txns.addAborted(TxnMarkers.collect(all, s.baseOffset, upTo));
                forEachChunk(
                        s,
                        c,
                        records -> {
                            for (MutableRecordBatch b : records.batches()) {
                                last[0] = b.baseOffset();
                                last[1] = b.lastOffset();
                                last[2] = b.maxTimestamp();
                            }
                            writeBuffer.clear();
                            MemoryRecords.FilterResult r =
                                    records.filterTo(
                                            filter,
                                            writeBuffer,
                                            decompression,
                                            config.messageMaxBytes());
                            writeBuffer = r.outputBuffer();
                            ByteBuffer out = writeBuffer.duplicate().flip();
                            if (out.hasRemaining()) {
                                cleaned.append(out);
                                c.written += out.remaining();
                                throttler.maybeThrottle(out.remaining());
                            }
                            return true;
                        });
            }
            cleaned.writeTxnIndex(filter.txns.cleanedIndex());
            if (cleaned.nextOffset() < groupEnd && last[1] == groupEnd - 1) {
                cleaned.appendEmptyBatch(last[0], last[1], last[2]);
            } else if (cleaned.nextOffset() < groupEnd) {
                // the group ends in an offset gap (a recovery's): keep its end all the same
                cleaned.appendEmptyBatch(groupEnd - 1, groupEnd - 1, Math.max(last[2], 0));
            }
            cleaned.finish();
            checkDone();
            swapped = log.replaceSegments(group);
            if (swapped) {
                LOG.info(
                        "{}: cleaned segments {}..{} into {} ({} bytes)",
                        log.topicPartition(),
                        base,
                        groupEnd - 1,
                        base,
                        cleaned.size());
            }
            return swapped;
        } finally {
            cleaned.close();
            if (!swapped) {
                CleanedSegment.deleteFiles(log.dir(), base, CleanedSegment.CLEANED_SUFFIX);
            }
        }
    }

    // ---------------------------------------------------------------- reading

    /** Receives the whole batches of one chunk; false to stop reading the segment. */
    @FunctionalInterface
    private interface ChunkConsumer {
        boolean accept(MemoryRecords records) throws IOException, InterruptedException;
    }

    /** Reads the segment's batches chunk by chunk (each chunk whole batches), throttled. */
    private void forEachChunk(LogSegment s, Counters c, ChunkConsumer consumer)
            throws IOException, InterruptedException, AbortedException {
        FileChannel ch = s.pin();
        try {
            long pos = 0;
            long end = s.size();
            while (pos < end) {
                checkDone();
                readBuffer.clear();
                readBuffer.limit((int) Math.min(readBuffer.capacity(), end - pos));
                long p = pos;
                while (readBuffer.hasRemaining()) {
                    int n = ch.read(readBuffer, p);
                    if (n < 0) {
                        throw new IOException("Unexpected end of " + s.logFile() + " at " + p);
                    }
                    p += n;
                }
                readBuffer.flip();
                int whole = wholeBatches(readBuffer);
                if (whole == 0) {
                    int need = readBuffer.getInt(LENGTH_OFFSET) + LOG_OVERHEAD;
                    if (need <= readBuffer.capacity() || need > end - pos) {
                        throw new IOException(
                                "Invalid batch of "
                                        + need
                                        + " bytes in "
                                        + s.logFile()
                                        + " at "
                                        + pos);
                    }
                    readBuffer = ByteBuffer.allocate(need);
                    continue;
                }
                readBuffer.limit(whole);
                c.read += whole;
                throttler.maybeThrottle(whole);
                if (!consumer.accept(MemoryRecords.readableRecords(readBuffer.slice()))) {
                    return;
                }
                pos += whole;
            }
        } finally {
            s.unpin();
        }
    }

    /** Bytes of the whole batches at the start of {@code b}. */
    private static int wholeBatches(ByteBuffer b) {
        int p = 0;
        while (b.limit() - p >= LOG_OVERHEAD) {
            int size = b.getInt(p + LENGTH_OFFSET) + LOG_OVERHEAD;
            if (size < HEADER_SIZE || size > b.limit() - p) {
                break;
            }
            p += size;
        }
        return p;
    }

    private void checkDone() throws AbortedException {
        if (stopped.getAsBoolean()) {
            throw new AbortedException();
        }
    }

    // ---------------------------------------------------------------- the filter

    /** Kafka's cleaner record filter over {@link MemoryRecords#filterTo}. */
    static final class Filter extends MemoryRecords.RecordFilter {
        private final OffsetMap map;
        private final Map<Long, ProducerEntry> producerLast;
        private final boolean mayDropTombstones;
        final CleanerTxns txns;
        private boolean discardBatchRecords;
        long read;
        long retained;

        Filter(
                long now,
                long deleteRetentionMs,
                OffsetMap map,
                Map<Long, ProducerEntry> producerLast,
                boolean mayDropTombstones,
                CleanerTxns txns) {
            super(now, deleteRetentionMs);
            this.map = map;
            this.producerLast = producerLast;
            this.mayDropTombstones = mayDropTombstones;
            this.txns = txns;
        }

        @Override
        protected BatchRetentionResult checkBatchRetention(RecordBatch batch) {
            boolean canDiscard = txns.onBatch(batch);
            if (batch.isControlBatch()) {
                // a spent marker waits out its delete horizon (set by this pass if it has none)
                java.util.OptionalLong horizon = batch.deleteHorizonMs();
                discardBatchRecords =
                        canDiscard && horizon.isPresent() && horizon.getAsLong() <= currentTime;
            } else {
                discardBatchRecords = canDiscard;
            }
            BatchRetention retention;
            if (batch.hasProducerId() && isLastOfProducer(batch)) {
                retention = BatchRetention.RETAIN_EMPTY;
            } else if (discardBatchRecords) {
                retention = BatchRetention.DELETE;
            } else {
                retention = BatchRetention.DELETE_EMPTY;
            }
            return new BatchRetentionResult(retention, canDiscard && batch.isControlBatch());
        }

        /**
         * Kafka's {@code isBatchLastRecordOfProducer}: the batch holding the producer's last
         * sequence, or (with no batch since its last marker) that marker, which holds its epoch.
         */
        private boolean isLastOfProducer(RecordBatch batch) {
            ProducerEntry e = producerLast.get(batch.producerId());
            if (e == null) {
                return false;
            }
            if (e.lastOffset() >= 0) {
                return batch.lastOffset() == e.lastOffset();
            }
            return batch.isControlBatch() && batch.producerEpoch() == e.producerEpoch();
        }

        @Override
        protected boolean shouldRetainRecord(RecordBatch batch, Record record) {
            read++;
            boolean keep = retain(batch, record);
            if (keep) {
                retained++;
            }
            return keep;
        }

        private boolean retain(RecordBatch batch, Record record) {
            if (discardBatchRecords) {
                return false; // kept only for the producer's state, if at all
            }
            if (batch.isControlBatch()) {
                return true;
            }
            if (record.offset() > map.latestOffset()) {
                return true;
            }
            if (!record.hasKey()) {
                return false;
            }
            boolean latest = record.offset() >= map.get(record.key());
            if (!latest) {
                return false;
            }
            if (record.hasValue()) {
                return true;
            }
            java.util.OptionalLong horizon = batch.deleteHorizonMs();
            return !mayDropTombstones || horizon.isEmpty() || currentTime < horizon.getAsLong();
        }
    }
}
