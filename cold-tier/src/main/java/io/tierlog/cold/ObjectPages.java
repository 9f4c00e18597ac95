package io.tierlog.cold;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.format.ColumnIndex;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.internal.hadoop.metadata.IndexReference;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.MessageType;

/**
 * The page map of one cold object, parsed once from its footer and page indexes and shared by every
 * read of the object: per row group, each column chunk's pages (file offset, size with header,
 * first row) and, from the column index of {@code batch_last_offset}, the largest batch last offset
 * of each page, which finds the page where the batch holding an offset starts without reading data.
 * Dictionaries are decoded once per column chunk and kept.
 *
 * <p>Thread-safe: immutable after construction but for the dictionary cache (concurrent).
 */
final class ObjectPages {
    /** One column chunk: its descriptor, metadata and pages. */
    record Chunk(
            ColumnDescriptor descriptor,
            ColumnChunkMetaData meta,
            OffsetIndex pages,
            long dictionaryOffset,
            int dictionaryLength) {
        /** Index of the page holding row {@code row} (relative to the row group). */
        int pageOfRow(long row) {
            int lo = 0;
            int hi = pages.getPageCount() - 1;
            while (lo < hi) {
                int mid = (lo + hi + 1) >>> 1;
                if (pages.getFirstRowIndex(mid) <= row) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            return lo;
        }
    }

    /** One row group: its rows and chunks by leaf column name (see {@link #leafName}). */
    record RowGroup(
            int ordinal,
            long rowCount,
            Map<String, Chunk> chunks,
            long[] pageMaxLastOffset,
            Chunk lastOffsetChunk,
            long maxLastOffset) {
        /** Row (in this group) where the first batch with last offset >= {@code offset} starts. */
        long startRowFor(long offset) {
            if (pageMaxLastOffset == null) {
                return 0;
            }
            for (int p = 0; p < pageMaxLastOffset.length; p++) {
                if (pageMaxLastOffset[p] >= offset) {
                    return lastOffsetChunk.pages().getFirstRowIndex(p);
                }
            }
            return 0;
        }

        /**
         * Row (in this group) after the page that follows the first page holding a batch with last
         * offset >= {@code offset}: reading up to it covers the records below {@code offset} and at
         * least a page more (a read runs into the next batch to see where one ends). The group's
         * row count if no page reaches that far or the group has no column index.
         */
        long endRowFor(long offset) {
            if (pageMaxLastOffset == null) {
                return rowCount;
            }
            for (int p = 0; p < pageMaxLastOffset.length; p++) {
                if (pageMaxLastOffset[p] >= offset) {
                    return p + 2 < pageMaxLastOffset.length
                            ? lastOffsetChunk.pages().getFirstRowIndex(p + 2)
                            : rowCount;
                }
            }
            return rowCount;
        }
    }

    private final List<RowGroup> rowGroups;

    /** Bytes of dictionary pages an object keeps decoded across reads, at most. */
    static final int MAX_DICTIONARY_BYTES = 128 * 1024;

    private final Map<String, Dictionary> dictionaries = new ConcurrentHashMap<>();
    private final AtomicLong dictionaryBytes = new AtomicLong();
    private final AtomicLong notKept = new AtomicLong();

    private ObjectPages(List<RowGroup> rowGroups) {
        this.rowGroups = rowGroups;
    }

    List<RowGroup> rowGroups() {
        return rowGroups;
    }

    /** The decoded dictionary of {@code chunk} of row group {@code group}, if already decoded. */
    Dictionary dictionary(int group, String leaf) {
        return dictionaries.get(group + "/" + leaf);
    }

    /**
     * Keeps a decoded dictionary of {@code pageBytes} (its page, uncompressed) for later reads,
     * unless this object's kept dictionaries would exceed {@link #MAX_DICTIONARY_BYTES}: a reader
     * stays cached per object ({@code cold.metadata.cache.objects}), so its memory must stay small;
     * larger dictionaries (columns with many distinct values) are decoded per read.
     */
    void putDictionary(int group, String leaf, Dictionary d, int pageBytes) {
        if (dictionaryBytes.addAndGet(pageBytes) > MAX_DICTIONARY_BYTES) {
            dictionaryBytes.addAndGet(-pageBytes);
            notKept.incrementAndGet();
            return;
        }
        if (dictionaries.putIfAbsent(group + "/" + leaf, d) != null) {
            dictionaryBytes.addAndGet(-pageBytes);
        }
    }

    /** Dictionaries decoded but not kept, over the budget (for tests). */
    long dictionariesNotKept() {
        return notKept.get();
    }

    /** Bytes of dictionary pages kept decoded (for tests). */
    long keptDictionaryBytes() {
        return dictionaryBytes.get();
    }

    /**
     * The name a read uses for a leaf column: the top-level name, or {@code headers.key} / {@code
     * headers.value} for the header list's leaves.
     */
    static String leafName(String[] path) {
        if (path.length > 1 && path[0].equals(ColdLayout.HEADERS)) {
            return ColdLayout.HEADERS + "." + path[path.length - 1];
        }
        return path[0];
    }

    /**
     * Parses the page indexes of every row group of {@code footer}, reading them through {@code in}
     * (the object's cached tail, after {@link ObjectStoreInputFile#prefetchIndexes}). Fails with
     * {@link UnsupportedLayoutException} if a chunk has no offset index (such objects are read by
     * parquet-mr instead).
     */
    static ObjectPages parse(ParquetMetadata footer, SeekableInputStream in) throws IOException {
        MessageType schema = footer.getFileMetaData().getSchema();
        List<RowGroup> groups = new ArrayList<>();
        int ordinal = 0;
        for (BlockMetaData block : footer.getBlocks()) {
            Map<String, Chunk> chunks = new HashMap<>();
            long[] maxLast = null;
            Chunk lastChunk = null;
            long groupMax = Long.MAX_VALUE;
            for (ColumnChunkMetaData c : block.getColumns()) {
                String[] path = c.getPath().toArray();
                String leaf = leafName(path);
                IndexReference ref = c.getOffsetIndexReference();
                if (ref == null) {
                    throw new UnsupportedLayoutException("no offset index for column " + leaf);
                }
                in.seek(ref.getOffset());
                OffsetIndex pages =
                        ParquetMetadataConverter.fromParquetOffsetIndex(Util.readOffsetIndex(in));
                if (pages.getPageCount() == 0) {
                    throw new UnsupportedLayoutException("empty offset index for column " + leaf);
                }
                long firstData = pages.getOffset(0);
                long start = c.getStartingPos();
                Chunk chunk =
                        new Chunk(
                                schema.getColumnDescription(path),
                                c,
                                pages,
                                start,
                                (int) Math.max(0, firstData - start));
                chunks.put(leaf, chunk);
                if (leaf.equals(ColdLayout.BATCH_LAST_OFFSET)) {
                    lastChunk = chunk;
                    if (c.getStatistics() != null && c.getStatistics().hasNonNullValue()) {
                        groupMax = ((Number) c.getStatistics().genericGetMax()).longValue();
                    }
                    IndexReference ci = c.getColumnIndexReference();
                    if (ci != null) {
                        in.seek(ci.getOffset());
                        maxLast = maxima(Util.readColumnIndex(in), pages.getPageCount());
                    }
                }
            }
            groups.add(
                    new RowGroup(
                            ordinal++, block.getRowCount(), chunks, maxLast, lastChunk, groupMax));
        }
        return new ObjectPages(List.copyOf(groups));
    }

    /** Per-page maxima of an INT64 column index; null if the index does not have them all. */
    private static long[] maxima(ColumnIndex index, int pageCount) {
        List<ByteBuffer> max = index.getMax_values();
        List<Boolean> nulls = index.getNull_pages();
        if (max == null || max.size() != pageCount) {
            return null;
        }
        long[] out = new long[pageCount];
        for (int i = 0; i < pageCount; i++) {
            ByteBuffer b = max.get(i);
            if ((nulls != null && nulls.get(i)) || b.remaining() != Long.BYTES) {
                return null;
            }
            out[i] = b.duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong(b.position());
        }
        return out;
    }

    /** A layout feature the columnar reader does not implement (parquet-mr reads it instead). */
    static final class UnsupportedLayoutException extends IOException {
        private static final long serialVersionUID = 1L;

        UnsupportedLayoutException(String message) {
            super(message);
        }
    }
}
