package io.tierlog.cold;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.io.ParquetFileRange;

/**
 * Rebuilds the record batches of a cold object from a start offset, decoding columns directly (no
 * record assembly): the page map of {@link ObjectPages} finds the page where the batch holding the
 * offset starts; the pages of every needed column that cover an estimated window of rows are
 * fetched at once (coalesced ranged GETs through {@link ObjectStoreInputFile}), more windows only
 * if the batches asked for reach further; rows are decoded by one {@link ColumnCursor} per column
 * and written by a {@link BatchEncoder}.
 *
 * <p>Not thread-safe: one instance per read.
 */
final class ColumnarReader {
    private static final String[] BATCH_COLUMNS = {
        ColdLayout.BATCH_BASE_OFFSET,
        ColdLayout.BATCH_LAST_OFFSET_DELTA,
        ColdLayout.BATCH_PARTITION_LEADER_EPOCH,
        ColdLayout.BATCH_PRODUCER_ID,
        ColdLayout.BATCH_PRODUCER_EPOCH,
        ColdLayout.BATCH_BASE_SEQUENCE,
        ColdLayout.BATCH_ATTRIBUTES,
        ColdLayout.BATCH_BASE_TIMESTAMP,
        ColdLayout.BATCH_MAX_TIMESTAMP
    };

    private static final String HEADER_KEY = ColdLayout.HEADERS + "." + ColdLayout.KEY;
    private static final String HEADER_VALUE = ColdLayout.HEADERS + "." + ColdLayout.VALUE;

    private final ObjectPages pages;
    private final ObjectStoreInputFile file;
    private final PageDecompressor codecs;
    private final long startOffset;
    private final int maxBytes;
    private final long estimatedRows;

    /** Offset up to which the first fetch of a group reaches (estimated from maxBytes). */
    private final long targetOffset;

    private final BatchEncoder out;
    private final ReadArena arena;

    /** {@code batch_txn_state} of the transactional batches begun, by base offset. */
    private final Map<Long, TxnState> states = new HashMap<>();

    ColumnarReader(
            ObjectPages pages,
            ObjectStoreInputFile file,
            PageDecompressor codecs,
            long startOffset,
            int maxBytes,
            long avgRecordBytes,
            int initialBuffer,
            ReadArena arena) {
        this.arena = arena;
        this.pages = pages;
        this.file = file;
        this.codecs = codecs;
        this.startOffset = startOffset;
        this.maxBytes = maxBytes;
        this.estimatedRows = maxBytes / Math.max(1, avgRecordBytes) + 1;
        long t = startOffset + estimatedRows;
        this.targetOffset = t < startOffset ? Long.MAX_VALUE : t;
        this.out = new BatchEncoder(initialBuffer);
    }

    /**
     * The stored {@code batch_txn_state} of the transactional batches {@link #read} decoded (and
     * perhaps of one it dropped for size), by base offset; empty for an object without the column.
     */
    Map<Long, TxnState> txnStates() {
        return states;
    }

    /**
     * Whole batches with last offset >= the start offset, in order: at least one, more while the
     * total stays within maxBytes (the contract of {@link ParquetLogReader#read}).
     */
    ByteBuffer read() throws IOException {
        List<ObjectPages.RowGroup> groups = pages.rowGroups();
        boolean first = true;
        long skipping = Long.MIN_VALUE; // base offset of a batch below the start offset
        int complete = 0;
        for (ObjectPages.RowGroup g : groups) {
            if (g.rowCount() == 0 || (first && g.maxLastOffset() < startOffset)) {
                continue; // every batch of this group ends before the start
            }
            long startRow = first ? g.startRowFor(startOffset) : 0;
            first = false;
            Group group = new Group(g, startRow);
            for (long row = startRow; row < g.rowCount(); row++) {
                long base = group.batch[0].readLong();
                int lastDelta = group.batch[1].readInt();
                int epoch = group.batch[2].readInt();
                long producerId = group.batch[3].readLong();
                int producerEpoch = group.batch[4].readInt();
                int baseSequence = group.batch[5].readInt();
                int attributes = group.batch[6].readInt();
                long baseTimestamp = group.batch[7].readLong();
                long maxTimestamp = group.batch[8].readLong();
                ColumnCursor txn = group.txnState;
                if (txn != null) {
                    txn.beginEntry();
                    txn.readBinaryValue();
                    txn.endEntry();
                }
                boolean newBatch = out.inBatch() ? base != out.baseOffset() : base != skipping;
                if (newBatch) {
                    if (out.inBatch()) {
                        out.end();
                        if (complete > 0 && out.position() > maxBytes) {
                            out.truncate(complete); // this batch does not fit: drop it
                            return out.buffer();
                        }
                        complete = out.position();
                        if (complete >= maxBytes) {
                            return out.buffer();
                        }
                    }
                    if (base + lastDelta < startOffset) {
                        skipping = base;
                    } else {
                        skipping = Long.MIN_VALUE;
                        if (txn != null
                                && (attributes & RowBatchBuilder.TRANSACTIONAL_FLAG_MASK) != 0) {
                            states.put(base, TxnState.ofColumn(txn.bytes, txn.offset, txn.length));
                        }
                        out.begin(
                                new BatchHeader(
                                        base,
                                        lastDelta,
                                        epoch,
                                        producerId,
                                        (short) producerEpoch,
                                        baseSequence,
                                        (short) attributes,
                                        baseTimestamp,
                                        maxTimestamp));
                    }
                }
                if (!out.inBatch()) {
                    group.skipRecord();
                } else {
                    group.writeRecord(out);
                    if (complete > 0 && out.overflows(maxBytes)) {
                        out.truncate(complete); // this batch will not fit: stop decoding it
                        return out.buffer();
                    }
                }
            }
        }
        if (out.inBatch()) {
            out.end();
            if (complete > 0 && out.position() > maxBytes) {
                out.truncate(complete);
            }
        }
        return out.buffer();
    }

    /** The cursors of one row group and the pages fetched for them. */
    private final class Group implements ColumnCursor.Pages {
        private final ObjectPages.RowGroup group;
        final ColumnCursor[] batch = new ColumnCursor[BATCH_COLUMNS.length];
        private final ColumnCursor offset;
        private final ColumnCursor timestamp;
        private final ColumnCursor key;
        private final ColumnCursor value;
        private final ColumnCursor headerKey;
        private final ColumnCursor headerValue;

        /** {@code batch_txn_state}; null in objects of format 1, which lack it. */
        final ColumnCursor txnState;

        private final List<ColumnCursor> all = new ArrayList<>();

        /** Page bytes fetched and not yet used, by file offset. */
        private final Map<Long, ByteBuffer> fetched = new HashMap<>();

        /** Per cursor, the first page not yet fetched. */
        private final Map<ColumnCursor, Integer> unfetched = new HashMap<>();

        private long fetchedUpToRow;

        Group(ObjectPages.RowGroup group, long startRow) throws IOException {
            this.group = group;
            for (int i = 0; i < BATCH_COLUMNS.length; i++) {
                batch[i] = cursor(BATCH_COLUMNS[i]);
            }
            offset = cursor(ColdLayout.OFFSET);
            timestamp = cursor(ColdLayout.TIMESTAMP);
            key = cursor(ColdLayout.KEY);
            value = cursor(ColdLayout.VALUE);
            headerKey = cursor(HEADER_KEY);
            headerValue = cursor(HEADER_VALUE);
            txnState =
                    group.chunks().containsKey(ColdLayout.BATCH_TXN_STATE)
                            ? cursor(ColdLayout.BATCH_TXN_STATE)
                            : null;
            for (ColumnCursor c : all) {
                unfetched.put(c, c.chunk().pageOfRow(startRow));
            }
            fetchedUpToRow = startRow;
            fetch(group.endRowFor(targetOffset) - startRow, true);
            for (ColumnCursor c : all) {
                c.seekToRow(startRow);
            }
        }

        private ColumnCursor cursor(String leaf) throws IOException {
            ObjectPages.Chunk chunk = group.chunks().get(leaf);
            if (chunk == null) {
                throw new IOException("row group " + group.ordinal() + " has no column " + leaf);
            }
            ColumnCursor c = new ColumnCursor(pages, group.ordinal(), leaf, chunk, this, codecs);
            all.add(c);
            return c;
        }

        void skipRecord() throws IOException {
            offset.skipRow();
            timestamp.skipRow();
            key.skipRow();
            value.skipRow();
            headerKey.skipRow();
            headerValue.skipRow();
        }

        void writeRecord(BatchEncoder enc) throws IOException {
            long off = offset.readLong();
            long ts = Math.floorDiv(timestamp.readLong(), 1000L);
            readHeaders(enc);
            int kd = key.beginEntry();
            byte[] kb = null;
            int ko = 0;
            int kl = -1;
            if (kd == key.maxDefinitionLevel()) {
                key.readBinaryValue();
                kb = key.bytes;
                ko = key.offset;
                kl = key.length;
            }
            key.endEntry();
            int vd = value.beginEntry();
            byte[] vb = null;
            int vo = 0;
            int vl = -1;
            if (vd == value.maxDefinitionLevel()) {
                value.readBinaryValue();
                vb = value.bytes;
                vo = value.offset;
                vl = value.length;
            }
            value.endEntry();
            enc.record(off, ts, kb, ko, kl, vb, vo, vl);
        }

        /** Adds the headers of the current row to {@code enc} (none for an empty list). */
        private void readHeaders(BatchEncoder enc) throws IOException {
            do {
                int kd = headerKey.beginEntry();
                int vd = headerValue.beginEntry();
                if (kd == headerKey.maxDefinitionLevel()) {
                    headerKey.readBinaryValue();
                    byte[] vb = null;
                    int vo = 0;
                    int vl = -1;
                    if (vd == headerValue.maxDefinitionLevel()) {
                        headerValue.readBinaryValue();
                        vb = headerValue.bytes;
                        vo = headerValue.offset;
                        vl = headerValue.length;
                    }
                    enc.header(headerKey.bytes, headerKey.offset, headerKey.length, vb, vo, vl);
                }
                headerKey.endEntry();
                headerValue.endEntry();
            } while (headerKey.continuesRow());
        }

        @Override
        public ByteBuffer dataPage(ObjectPages.Chunk chunk, int page) throws IOException {
            long at = chunk.pages().getOffset(page);
            ByteBuffer b = fetched.remove(at);
            if (b == null) {
                // Pages of other columns may end earlier: their unfetched pages come along.
                fetchedUpToRow = Math.max(fetchedUpToRow, chunk.pages().getFirstRowIndex(page));
                fetch(Math.max(1, estimatedRows / 8), false);
                b = fetched.remove(at);
                if (b == null) {
                    throw new IOException(
                            "page " + page + " of column " + chunk.descriptor() + " not fetched");
                }
            }
            return b;
        }

        @Override
        public ByteBuffer dictionaryPage(ObjectPages.Chunk chunk) throws IOException {
            ByteBuffer b = fetched.remove(chunk.dictionaryOffset());
            if (b == null) {
                ParquetFileRange r =
                        new ParquetFileRange(chunk.dictionaryOffset(), chunk.dictionaryLength());
                file.readRanges(List.of(r), arena);
                b = r.getDataReadFuture().join();
            }
            return b;
        }

        /**
         * Fetches, for every cursor, the pages not yet fetched that hold the next {@code rows} rows
         * (at least one), and with {@code dictionaries} the dictionaries not yet decoded.
         */
        private void fetch(long rows, boolean dictionaries) throws IOException {
            long from = fetchedUpToRow;
            long end = Math.min(group.rowCount(), from + Math.max(1, rows));
            List<ParquetFileRange> ranges = new ArrayList<>();
            for (ColumnCursor c : all) {
                ObjectPages.Chunk chunk = c.chunk();
                if (dictionaries
                        && chunk.dictionaryLength() > 0
                        && pages.dictionary(group.ordinal(), c.leaf()) == null) {
                    ranges.add(
                            new ParquetFileRange(
                                    chunk.dictionaryOffset(), chunk.dictionaryLength()));
                }
                int firstPage = unfetched.get(c);
                int lastPage = end > from ? chunk.pageOfRow(end - 1) : firstPage - 1;
                for (int p = firstPage; p <= lastPage; p++) {
                    ranges.add(
                            new ParquetFileRange(
                                    chunk.pages().getOffset(p),
                                    chunk.pages().getCompressedPageSize(p)));
                }
                unfetched.put(c, Math.max(firstPage, lastPage + 1));
            }
            file.readRanges(ranges, arena);
            for (ParquetFileRange r : ranges) {
                fetched.put(r.getOffset(), r.getDataReadFuture().join());
            }
            fetchedUpToRow = Math.max(fetchedUpToRow, end);
        }
    }
}
