package io.tierlog.cold;

import static org.apache.parquet.filter2.predicate.FilterApi.and;
import static org.apache.parquet.filter2.predicate.FilterApi.gtEq;
import static org.apache.parquet.filter2.predicate.FilterApi.longColumn;
import static org.apache.parquet.filter2.predicate.FilterApi.ltEq;

import io.tierlog.common.typed.ValueRebuilder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.utils.internals.ByteBufferOutputStream;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * Reads record batches back from one Parquet object in an {@link ObjectStore}. The first read
 * fetches the object's tail (footer) with one ranged GET and the page indexes with a second one;
 * each {@link #read} then fetches only the pages, of the row groups whose statistics match, that
 * hold the batches asked for (ranged GETs through {@link ObjectStoreInputFile}). Batches are
 * rebuilt by {@link RowBatchBuilder} with their original boundaries, offsets, timestamps, producer
 * fields, headers and codec; Parquet page checksums are verified.
 *
 * <p>Thread-safe: concurrent reads share the cached footer and indexes.
 */
public final class ParquetLogReader {
    // Rebuilt batches are presized to the read plus a quarter (a read may end past maxBytes on a
    // batch boundary): Kafka's ByteBufferOutputStream grows by only 10%, and growing from 1 MiB to
    // an 8 MiB chunk was the largest allocation of cold reads. Capped for huge maxBytes.
    private static final int MAX_INITIAL_BUFFER = 64 << 20;

    private final String key;
    private final ObjectStoreInputFile file;
    private final ParquetConfiguration conf = new PlainParquetConfiguration();
    private volatile Footer footer;

    /** The page map for columnar reads; null if the object needs parquet-mr's record reader. */
    private volatile ObjectPages pages;

    /** What the file metadata says about the object. */
    private record Footer(
            String topic,
            int partition,
            long firstOffset,
            long lastOffset,
            long recordCount,
            long sourceBytes,
            int formatVersion,
            long rebuiltValues) {}

    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(ParquetLogReader.class);

    /** Format 1 objects: the transaction markers inside, loaded at the first need. */
    private volatile LegacyTxnStates legacyStates;

    /**
     * A reader of object {@code key} of {@code objectSize} bytes (as committed in the catalog). No
     * request is made until the first read.
     */
    public ParquetLogReader(ObjectStore store, String key, long objectSize) {
        this(store, key, objectSize, null);
    }

    /**
     * As {@link #ParquetLogReader(ObjectStore, String, long)}, rebuilding values stored once (rows
     * with {@code value_rebuilt}, format 3) with {@code rebuilder}; null = a read of such a row
     * fails with {@link ObjectCorruptException}. A rebuilt value whose CRC-32C differs from the one
     * stored fails the read the same way: a reader never returns bytes other than those written.
     */
    public ParquetLogReader(
            ObjectStore store, String key, long objectSize, ValueRebuilder rebuilder) {
        this.key = Objects.requireNonNull(key, "key");
        this.file =
                new ObjectStoreInputFile(Objects.requireNonNull(store, "store"), key, objectSize);
        this.rebuilder = rebuilder;
    }

    private final ValueRebuilder rebuilder;

    private Footer footer() throws IOException {
        Footer f = footer;
        if (f != null) {
            return f;
        }
        synchronized (this) {
            if (footer != null) {
                return footer;
            }
            ParquetMetadata meta;
            try (ParquetFileReader r =
                    ParquetFileReader.open(file, ParquetReadOptions.builder(conf).build())) {
                meta = r.getFooter();
            } catch (ObjectStoreException e) {
                throw e;
            } catch (IOException | RuntimeException e) {
                throw ObjectCorruptException.decodeFailure(key, "cannot read Parquet footer", e);
            }
            file.prefetchIndexes(meta);
            try (SeekableInputStream in = file.newStream()) {
                pages = ObjectPages.parse(meta, in);
            } catch (ObjectPages.UnsupportedLayoutException e) {
                pages = null; // read with parquet-mr
            } catch (IOException | RuntimeException e) {
                throw ObjectCorruptException.decodeFailure(
                        key, "cannot read Parquet page index", e);
            }
            Map<String, String> kv = meta.getFileMetaData().getKeyValueMetaData();
            try {
                String version = kv.get(ColdLayout.META_FORMAT_VERSION);
                if (version == null || Integer.parseInt(version) > ColdLayout.FORMAT_VERSION) {
                    throw new ObjectCorruptException(
                            key, "unsupported cold object format version " + version, null);
                }
                footer =
                        new Footer(
                                kv.get(ColdLayout.META_TOPIC),
                                Integer.parseInt(kv.get(ColdLayout.META_PARTITION)),
                                Long.parseLong(kv.get(ColdLayout.META_FIRST_OFFSET)),
                                Long.parseLong(kv.get(ColdLayout.META_LAST_OFFSET)),
                                Long.parseLong(kv.get(ColdLayout.META_RECORD_COUNT)),
                                Long.parseLong(kv.get(ColdLayout.META_SOURCE_BYTES)),
                                Integer.parseInt(version),
                                Long.parseLong(
                                        kv.getOrDefault(ColdLayout.META_TYPED_VALUE_REBUILT, "0")));
            } catch (NumberFormatException | NullPointerException e) {
                throw new ObjectCorruptException(key, "missing or bad tierlog metadata: " + e, e);
            }
            return footer;
        }
    }

    /** The page map of the columnar reader, null before the first read or if unsupported. */
    ObjectPages pageMap() {
        return pages;
    }

    /** First offset held by the object (from its metadata). */
    public long firstOffset() throws IOException {
        return footer().firstOffset();
    }

    /** Last offset held by the object, inclusive (from its metadata). */
    public long lastOffset() throws IOException {
        return footer().lastOffset();
    }

    /**
     * The batches holding offsets from {@code startOffset}: starting with the batch that contains
     * it (or the object's first batch if {@code startOffset} precedes it, or the next batch if it
     * falls in an offset gap between two batches), whole batches in order, at least one batch, and
     * more only while the total stays within {@code maxBytes}. Empty when {@code startOffset} is
     * past the object's last offset.
     */
    public MemoryRecords read(long startOffset, int maxBytes) throws IOException {
        return readBatches(startOffset, maxBytes).records();
    }

    /**
     * Values of the object stored once ({@code tierlog.typed.value.rebuilt}; 0 before format 3).
     */
    public long rebuiltValues() throws IOException {
        return footer().rebuiltValues();
    }

    /** The object's format version ({@code tierlog.format.version}). */
    public int formatVersion() throws IOException {
        return footer().formatVersion();
    }

    /**
     * As {@link #read}, with the transactional outcome of every batch and the aborted runs of the
     * batches read (see {@link ColdBatches}): from {@code batch_txn_state}, or for an object of
     * format 1 derived from the transaction markers inside the object (a WARN once per object when
     * some batch's marker is not in it: that transaction counts as committed).
     */
    public ColdBatches readBatches(long startOffset, int maxBytes) throws IOException {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("negative maxBytes " + maxBytes);
        }
        Footer f = footer();
        if (startOffset > f.lastOffset() || f.recordCount() == 0) {
            return ColdBatches.EMPTY;
        }
        long avgRecordBytes = Math.max(1, f.sourceBytes() / Math.max(1, f.recordCount()));
        Map<Long, TxnState> states = new java.util.HashMap<>();
        MemoryRecords records = null;
        // Rows stored once need their value_record assembled: parquet-mr's record reader does it.
        ObjectPages p = f.rebuiltValues() > 0 ? null : pages;
        if (p != null) {
            try {
                // Decoding stops as soon as a batch cannot fit, so the buffer needs maxBytes and
                // one record: no slack is kept alive in the decoded-batch cache.
                int initial =
                        (int)
                                Math.min(
                                        Math.min(maxBytes, f.sourceBytes()) + 64 * 1024L,
                                        MAX_INITIAL_BUFFER);
                records = readColumnar(p, startOffset, maxBytes, avgRecordBytes, initial, states);
            } catch (ObjectPages.UnsupportedLayoutException e) {
                pages = null; // a page this reader does not decode: parquet-mr reads the object
                states.clear();
            }
        }
        if (records == null) {
            records = readRecords(startOffset, maxBytes, states);
        }
        if (f.formatVersion() >= ColdLayout.TXN_STATE_FORMAT_VERSION) {
            return ColdBatches.of(records, states, true);
        }
        if (!hasTransactionalData(records)) {
            return ColdBatches.of(records, states, false); // no markers needed
        }
        return ColdBatches.of(records, legacyStates().statesOf(records), false);
    }

    private static boolean hasTransactionalData(MemoryRecords records) {
        for (org.apache.kafka.common.record.internal.MutableRecordBatch b : records.batches()) {
            if (b.isTransactional() && !b.isControlBatch()) {
                return true;
            }
        }
        return false;
    }

    /** The markers of a format 1 object, read once (only control rows, by their statistics). */
    private LegacyTxnStates legacyStates() throws IOException {
        LegacyTxnStates l = legacyStates;
        if (l != null) {
            return l;
        }
        synchronized (this) {
            if (legacyStates != null) {
                return legacyStates;
            }
            FilterPredicate control =
                    org.apache.parquet.filter2.predicate.FilterApi.eq(
                            org.apache.parquet.filter2.predicate.FilterApi.booleanColumn(
                                    ColdLayout.BATCH_IS_CONTROL),
                            Boolean.TRUE);
            LegacyTxnStates.Builder b = new LegacyTxnStates.Builder(key);
            try (ParquetReader<ColdRow> reader =
                    filtered(
                            new Builder(
                                    file,
                                    conf,
                                    List.of(
                                            ColdLayout.BATCH_BASE_OFFSET,
                                            ColdLayout.BATCH_PRODUCER_ID,
                                            ColdLayout.BATCH_ATTRIBUTES,
                                            ColdLayout.BATCH_IS_CONTROL,
                                            ColdLayout.KEY)),
                            control)) {
                ColdRow row;
                while ((row = reader.read()) != null) {
                    if (row.isControl() && row.isTransactional()) {
                        b.marker(row.producerId, row.batchBaseOffset, row.key);
                    }
                }
            } catch (ObjectStoreException e) {
                throw e;
            } catch (IOException | RuntimeException e) {
                throw ObjectCorruptException.decodeFailure(
                        key, "cannot read transaction markers", e);
            }
            legacyStates = b.build(LOG);
            return legacyStates;
        }
    }

    /**
     * {@link #read} through parquet-mr's record reader (objects the columnar reader cannot read).
     */
    MemoryRecords readRecords(long startOffset, int maxBytes) throws IOException {
        return readRecords(startOffset, maxBytes, new java.util.HashMap<>());
    }

    /** {@link #readBatches} through parquet-mr's record reader (the reference in tests). */
    ColdBatches readBatchesWithRecordReader(long startOffset, int maxBytes) throws IOException {
        Map<Long, TxnState> states = new java.util.HashMap<>();
        MemoryRecords records = readRecords(startOffset, maxBytes, states);
        return ColdBatches.of(
                records, states, footer().formatVersion() >= ColdLayout.TXN_STATE_FORMAT_VERSION);
    }

    private MemoryRecords readRecords(long startOffset, int maxBytes, Map<Long, TxnState> states)
            throws IOException {
        Footer f = footer();
        if (startOffset > f.lastOffset() || f.recordCount() == 0) {
            return MemoryRecords.EMPTY;
        }
        long from = Math.max(startOffset, f.firstOffset());
        long avgRecordBytes = Math.max(1, f.sourceBytes() / Math.max(1, f.recordCount()));
        long upper = saturatedAdd(from, maxBytes / avgRecordBytes + 1);
        MemoryRecords found = scan(startOffset, from, upper, maxBytes, states);
        if (found.sizeInBytes() == 0 && upper < f.lastOffset()) {
            // startOffset lies in an offset gap (compaction, transaction markers) wider than the
            // estimated window: the next batch starts beyond it, and is still owed to the caller.
            found = scan(startOffset, from, f.lastOffset(), maxBytes, states);
        }
        return found;
    }

    private MemoryRecords readColumnar(
            ObjectPages p,
            long startOffset,
            int maxBytes,
            long avgRecordBytes,
            int initialBuffer,
            Map<Long, TxnState> states)
            throws IOException {
        ReadArena arena = ReadArena.forThisThread();
        try (PageDecompressor codecs = new PageDecompressor(conf)) {
            ColumnarReader reader =
                    new ColumnarReader(
                            p,
                            file,
                            codecs,
                            startOffset,
                            maxBytes,
                            avgRecordBytes,
                            initialBuffer,
                            arena);
            ByteBuffer b = reader.read();
            states.putAll(reader.txnStates());
            return MemoryRecords.readableRecords(b);
        } catch (ObjectStoreException | ObjectPages.UnsupportedLayoutException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw ObjectCorruptException.decodeFailure(
                    key, "cannot read offsets from " + startOffset, e);
        } finally {
            arena.reset(); // the rebuilt batches hold copies; no page is referenced any more
        }
    }

    private static int initialBufferBytes(int maxBytes) {
        return (int) Math.min(Math.max(maxBytes, 1024) * 5L / 4, MAX_INITIAL_BUFFER);
    }

    /** Whole batches with last offset >= {@code from} and base offset <= {@code upper}. */
    private MemoryRecords scan(
            long startOffset, long from, long upper, int maxBytes, Map<Long, TxnState> states)
            throws IOException {
        FilterPredicate wanted =
                and(
                        gtEq(longColumn(ColdLayout.BATCH_LAST_OFFSET), from),
                        ltEq(longColumn(ColdLayout.BATCH_BASE_OFFSET), upper));
        ByteBufferOutputStream out = new ByteBufferOutputStream(initialBufferBytes(maxBytes));
        int complete = 0;
        try (ParquetReader<ColdRow> reader =
                filtered(new Builder(file, conf).rebuildingWith(rebuilder), wanted)) {
            RowBatchBuilder current = null;
            ColdRow row;
            while ((row = reader.read()) != null) {
                if (current != null && row.batchBaseOffset != current.baseOffset()) {
                    current.close();
                    current = null;
                    if (complete > 0 && out.position() > maxBytes) {
                        break; // this batch does not fit: drop it
                    }
                    complete = out.position();
                    if (complete >= maxBytes) {
                        break;
                    }
                }
                if (current == null) {
                    current = new RowBatchBuilder(out, row);
                    if (row.isTransactional()) {
                        states.put(row.batchBaseOffset, row.txnState);
                    }
                }
                current.append(row);
            }
            if (current != null) {
                current.close();
                if (complete == 0 || out.position() <= maxBytes) {
                    complete = out.position();
                }
            }
        } catch (ObjectStoreException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw ObjectCorruptException.decodeFailure(
                    key, "cannot read offsets from " + startOffset, e);
        }
        ByteBuffer buf = out.buffer().duplicate();
        buf.position(0).limit(complete);
        return MemoryRecords.readableRecords(buf.slice());
    }

    /**
     * A reader of the rows that may match {@code wanted}, with the options of every filtered read:
     * row groups and pages pruned by their statistics and column index, rows filtered, page
     * checksums verified; dictionary and bloom filters off.
     */
    private static ParquetReader<ColdRow> filtered(Builder builder, FilterPredicate wanted)
            throws IOException {
        return builder.withFilter(FilterCompat.get(wanted))
                .useStatsFilter(true)
                .useColumnIndexFilter(true)
                .useRecordFilter(true)
                .useDictionaryFilter(false)
                .useBloomFilter(false)
                .usePageChecksumVerification(true)
                .build();
    }

    /**
     * The first record, in offset order, whose timestamp is at least {@code timestampMs} (Kafka's
     * ListOffsets semantics; LogAppendTime batches count with their batch timestamp). Reads only
     * the {@code offset} and {@code timestamp} columns, pruned by their statistics and page index.
     * Empty when no record of this object qualifies.
     */
    public Optional<OffsetAndTimestamp> offsetForTimestamp(long timestampMs) throws IOException {
        footer();
        long micros =
                timestampMs >= Long.MAX_VALUE / 1000
                        ? Long.MAX_VALUE
                        : Math.max(Long.MIN_VALUE / 1000, timestampMs) * 1000;
        FilterPredicate wanted = gtEq(longColumn(ColdLayout.TIMESTAMP), micros);
        try (ParquetReader<ColdRow> reader =
                filtered(
                        new Builder(file, conf, List.of(ColdLayout.OFFSET, ColdLayout.TIMESTAMP)),
                        wanted)) {
            ColdRow row = reader.read();
            return row == null
                    ? Optional.empty()
                    : Optional.of(new OffsetAndTimestamp(row.offset, row.timestamp));
        } catch (ObjectStoreException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw ObjectCorruptException.decodeFailure(
                    key, "cannot look up timestamp " + timestampMs, e);
        }
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /** parquet-mr reader builder bound to our read support. */
    private static final class Builder extends ParquetReader.Builder<ColdRow> {
        private final List<String> columns;

        Builder(InputFile file, ParquetConfiguration conf) {
            this(file, conf, null);
        }

        Builder(InputFile file, ParquetConfiguration conf, List<String> columns) {
            super(file, conf);
            this.columns = columns;
        }

        private ValueRebuilder rebuilder;

        Builder rebuildingWith(ValueRebuilder rebuilder) {
            this.rebuilder = rebuilder;
            return this;
        }

        @Override
        protected ReadSupport<ColdRow> getReadSupport() {
            return new ColdRowReadSupport(columns, rebuilder);
        }
    }
}
