package io.tierlog.cold;

import io.tierlog.common.Config;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Writes one Parquet object (layout documented in {@code ColdLayout}) from the record batches of
 * one partition, in offset order. Batches of any codec are accepted and decompressed; every record
 * becomes one row carrying its batch's fields, so that {@link ParquetLogReader} can rebuild the
 * batches.
 *
 * <p>Pages: every column's pages end on the same rows (a page row limit), so that the page index of
 * the offset columns selects about as many rows of the value column as a read wants. The limit is
 * {@code cold.parquet.page.bytes / 2} worth of records, estimated from the first batch appended (at
 * least {@value #MIN_PAGE_ROWS}, at most {@code cold.parquet.page.row.limit}): 1 KiB records get
 * pages of about 500 rows, 100-byte records of about 5,000 (each page costs a header, index entries
 * and a compressor call per column, which small fixed row counts make expensive). The Parquet
 * writer is therefore opened at the first append.
 *
 * <p>Not thread-safe: one thread appends, then calls {@link #finish()}; {@link #close()} without
 * {@code finish()} aborts and deletes the partial file.
 */
public final class ParquetLogWriter implements Closeable {
    private final Path file;
    private final String topic;
    private final int partition;
    private static final int MIN_PAGE_ROWS = 100;

    private final ColdRowWriteSupport writeSupport;
    private final ColdTierOptions options;

    /** Null for an object without typed columns. */
    private final TypedRows typedRows;

    private ParquetWriter<ColdRow> writer;
    private final ColdRow row = new ColdRow();
    private final BufferSupplier buffers = BufferSupplier.create();

    private long firstOffset = -1;
    private long lastOffset = -1;
    private long minTimestamp = Long.MAX_VALUE;
    private long maxTimestamp = Long.MIN_VALUE;
    private long recordCount;
    private long batchCount;
    private long sourceBytes;
    private long replacesFirst = -1; // >= 0: a compacted object replacing that range
    private long replacesLast = -1;
    private boolean finished;
    private boolean failed;
    private boolean closed;

    private ParquetLogWriter(
            Path file, String topic, int partition, ColdTierOptions options, TypedColumns typed) {
        this.file = file;
        this.topic = topic;
        this.partition = partition;
        this.writeSupport = new ColdRowWriteSupport(typed);
        this.options = options;
        this.typedRows = typed.any() ? new TypedRows(typed) : null;
    }

    /** Creates (or replaces) {@code localFile} for records of {@code topic}-{@code partition}. */
    public static ParquetLogWriter open(
            Path localFile, String topic, int partition, ColdTierOptions options)
            throws IOException {
        return open(localFile, topic, partition, options, TypedColumns.NONE);
    }

    /**
     * As {@link #open(Path, String, int, ColdTierOptions)}, with typed columns decoded from each
     * record's value and key by {@code typed} ({@link TypedColumns#NONE}: none; the object is then
     * format 2 as before). With typed columns the object is format 3; a value the typer decodes and
     * marks rebuildable is stored once (typed only) when {@link TypedColumns#oneCopy()}. A payload
     * the typer cannot decode never fails the append: its raw bytes are stored with the reason in
     * {@code value_error} ({@code key_error}).
     */
    public static ParquetLogWriter open(
            Path localFile,
            String topic,
            int partition,
            ColdTierOptions options,
            TypedColumns typed)
            throws IOException {
        Objects.requireNonNull(typed, "typed");
        Objects.requireNonNull(localFile, "localFile");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(options, "options");
        if (partition < 0) {
            throw new IllegalArgumentException("negative partition " + partition);
        }
        Files.deleteIfExists(localFile);
        return new ParquetLogWriter(localFile, topic, partition, options, typed);
    }

    /** As {@link #open(Path, String, int, ColdTierOptions)} with options from {@code config}. */
    public static ParquetLogWriter open(Path localFile, String topic, int partition, Config config)
            throws IOException {
        return open(localFile, topic, partition, ColdTierOptions.from(config));
    }

    /**
     * The numeric and boolean leaves of the typed columns, written without a dictionary: measured
     * on ~100-byte Avro values (TypedOffloadBenchmark), plain numbers under ZSTD came out smaller
     * than dictionary indexes (object 0.197 instead of 0.204 of the segment) and no slower, while
     * every dictionary lookup of a high-cardinality column (amounts, times) costs a hash probe per
     * value until parquet-mr falls back. Strings keep their dictionary (low-cardinality strings
     * shrink a lot with it).
     */
    static List<String> plainTypedColumns(MessageType schema) {
        List<String> out = new ArrayList<>();
        for (ColumnDescriptor d : schema.getColumns()) {
            String[] path = d.getPath();
            boolean typed =
                    path[0].equals(ColdLayout.VALUE_RECORD)
                            || path[0].equals(ColdLayout.KEY_RECORD);
            if (typed && d.getPrimitiveType().getPrimitiveTypeName() != PrimitiveTypeName.BINARY) {
                out.add(String.join(".", path));
            }
        }
        return out;
    }

    /** Opens the Parquet writer with pages of about half the page size of {@code first}'s rows. */
    private void openWriter(RecordBatch first) throws IOException {
        Builder builder =
                configure(
                        new Builder(new LocalOutputFile(file), writeSupport),
                        options,
                        pageRowLimit(options, first));
        for (String c : plainTypedColumns(writeSupport.schema())) {
            builder.withDictionaryEncoding(c, false);
        }
        writer = builder.build();
    }

    /**
     * The page row limit of an object whose first batch is {@code first}: about half a page of its
     * records, within [{@value #MIN_PAGE_ROWS}, {@code cold.parquet.page.row.limit}].
     */
    static int pageRowLimit(ColdTierOptions options, RecordBatch first) {
        // null: an object without rows (a compacted run whose records all went)
        int records =
                first == null
                        ? 1
                        : Math.max(1, first.countOrNull() == null ? 1 : first.countOrNull());
        long recordBytes = first == null ? 1024 : Math.max(1, first.sizeInBytes() / records);
        long rows = options.pageBytes() / 2 / recordBytes;
        int pageRows = (int) Math.max(MIN_PAGE_ROWS, Math.min(options.pageRowLimit(), rows));
        return Math.min(options.pageRowLimit(), pageRows);
    }

    /**
     * Applies the cold layout's writer settings: codec, row group and page sizes, page row limit,
     * encodings, statistics and checksums. The benchmark's bare parquet-java writer applies the
     * same through this method, so the two cannot drift apart.
     */
    static <T, B extends ParquetWriter.Builder<T, B>> B configure(
            B builder, ColdTierOptions options, int pageRowLimit) {
        PlainParquetConfiguration conf = new PlainParquetConfiguration();
        conf.setInt("parquet.compression.codec.zstd.level", options.zstdLevel());
        builder.withConf(conf)
                .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                .withCompressionCodec(codec(options.compression()))
                .withRowGroupSize(options.rowGroupBytes())
                .withPageSize(options.pageBytes())
                .withPageRowCountLimit(pageRowLimit)
                // parquet-mr checks page sizes only every 100+ rows by default: with large values
                // a page would overshoot withPageSize by 100 values or more.
                .withMinRowCountForPageSizeCheck(1)
                .withDictionaryEncoding(true)
                .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
                .withPageWriteChecksumEnabled(true)
                .withSizeStatisticsEnabled(false)
                .withValidation(false);
        for (String c : ColdLayout.NO_DICTIONARY_COLUMNS) {
            builder.withDictionaryEncoding(c, false);
        }
        for (String c : ColdLayout.NO_STATISTICS_COLUMNS) {
            builder.withStatisticsEnabled(c, false);
        }
        return builder;
    }

    static CompressionCodecName codec(ColdCompression c) {
        switch (c) {
            case ZSTD:
                return CompressionCodecName.ZSTD;
            case SNAPPY:
                return CompressionCodecName.SNAPPY;
            case GZIP:
                return CompressionCodecName.GZIP;
            case LZ4_RAW:
                return CompressionCodecName.LZ4_RAW;
            case UNCOMPRESSED:
                return CompressionCodecName.UNCOMPRESSED;
            default:
                throw new IllegalArgumentException("unknown codec " + c);
        }
    }

    /**
     * Appends every record of {@code batch} (magic v2, any codec) as {@link #append(RecordBatch,
     * TxnState)} with the state of a batch of no aborted transaction ({@link
     * TxnState#assumingCommitted}): for callers that know the batch's transaction committed, or
     * that it has none.
     */
    public void append(RecordBatch batch) throws IOException {
        append(batch, TxnState.assumingCommitted(batch));
    }

    /**
     * Appends every record of {@code batch} (magic v2, any codec) with the outcome {@code txnState}
     * of its transaction; its base offset must be greater than the last offset of the previous
     * batch. The state must be {@code NONE} exactly for a non-transactional batch, and a marker's
     * own type for a control batch.
     *
     * @throws IllegalArgumentException for an older magic, out-of-order offsets or a state that
     *     contradicts the batch; nothing of the batch is written then
     */
    public void append(RecordBatch batch, TxnState txnState) throws IOException {
        ensureOpen();
        Objects.requireNonNull(txnState, "txnState");
        if ((txnState == TxnState.NONE) == batch.isTransactional()) {
            throw new IllegalArgumentException(
                    "batch at offset "
                            + batch.baseOffset()
                            + (batch.isTransactional()
                                    ? " is transactional: its state cannot be none"
                                    : " is not transactional: its state must be none, not "
                                            + txnState.columnValue()));
        }
        if (batch.magic() != RecordBatch.MAGIC_VALUE_V2) {
            throw new IllegalArgumentException(
                    "only record batch magic v2 is supported, got v"
                            + batch.magic()
                            + " at offset "
                            + batch.baseOffset());
        }
        if (batch.baseOffset() <= lastOffset) {
            throw new IllegalArgumentException(
                    "batch at offset "
                            + batch.baseOffset()
                            + " does not follow the previous last offset "
                            + lastOffset
                            + " in "
                            + topic
                            + "-"
                            + partition);
        }
        DefaultRecordBatch b = asDefault(batch);
        b.ensureValid(); // a corrupt batch fails before any of its rows is written
        if (b.isControlBatch() && b.isTransactional() && TxnState.ofMarker(b) != txnState) {
            throw new IllegalArgumentException(
                    "control batch at offset "
                            + b.baseOffset()
                            + " is a "
                            + TxnState.ofMarker(b).columnValue()
                            + " marker, not "
                            + txnState.columnValue());
        }
        if (failed) {
            throw new IllegalStateException("an earlier append to " + file + " failed");
        }
        failed = true; // until the whole batch is written
        if (writer == null) {
            openWriter(b);
        }
        boolean logAppendTime = b.timestampType() == TimestampType.LOG_APPEND_TIME;
        row.setBatch(b, RowBatchBuilder.attributesOf(b), b.baseTimestamp());
        row.txnState = txnState;
        try (CloseableIterator<Record> it = b.streamingIterator(buffers)) {
            while (it.hasNext()) {
                Record r = it.next();
                row.offset = r.offset();
                row.timestamp = logAppendTime ? b.maxTimestamp() : r.timestamp();
                row.key = r.hasKey() ? r.key() : null;
                row.value = r.hasValue() ? r.value() : null;
                row.headers = r.headers();
                if (typedRows != null) {
                    typedRows.type(row);
                }
                writer.write(row);
                recordCount++;
                minTimestamp = Math.min(minTimestamp, row.timestamp);
                maxTimestamp = Math.max(maxTimestamp, row.timestamp);
            }
        }
        failed = false;
        if (firstOffset < 0) {
            firstOffset = b.baseOffset();
        }
        lastOffset = b.lastOffset();
        batchCount++;
        sourceBytes += b.sizeInBytes();
    }

    private static DefaultRecordBatch asDefault(RecordBatch batch) {
        if (batch instanceof DefaultRecordBatch d) {
            return d;
        }
        // e.g. a FileChannelRecordBatch of a segment: load it (reading it is needed anyway).
        ByteBuffer buf = ByteBuffer.allocate(batch.sizeInBytes());
        batch.writeTo(buf);
        buf.flip();
        return (DefaultRecordBatch) MemoryRecords.readableRecords(buf).firstBatch();
    }

    /**
     * Makes this a compacted object replacing the run of objects holding offsets {@code
     * firstOffset..lastOffset}: that becomes the object's range (its batches must lie within it;
     * the compaction may have removed records at either end) and the footer says so ({@code
     * tierlog.compacted.replaces}), so that a catalog rebuilt from the bucket prefers it to the
     * originals. Call before {@link #finish()}.
     */
    public void markCompacted(long firstOffset, long lastOffset) {
        ensureOpen();
        if (firstOffset < 0 || lastOffset < firstOffset) {
            throw new IllegalArgumentException(
                    "invalid replaced range " + firstOffset + ".." + lastOffset);
        }
        replacesFirst = firstOffset;
        replacesLast = lastOffset;
    }

    /** Number of rows written so far. */
    public long recordCount() {
        return recordCount;
    }

    /**
     * Approximate size of the object so far (bytes flushed plus buffered in the current row group),
     * to cap objects at a target size.
     */
    public long dataSize() {
        return writer == null ? 0 : writer.getDataSize();
    }

    /** What the typed columns hold so far ({@link TypedCounts#NONE} without typed columns). */
    public TypedCounts typedCounts() {
        return typedRows == null ? TypedCounts.NONE : typedRows.counts();
    }

    /** Bytes of input batches appended so far (Kafka's format, compressed as received). */
    public long sourceBytes() {
        return sourceBytes;
    }

    /**
     * Writes the file metadata and footer and closes the file.
     *
     * @throws IllegalStateException if no batch was appended
     */
    public WrittenObject finish() throws IOException {
        ensureOpen();
        if (failed) {
            throw new IllegalStateException("an earlier append to " + file + " failed");
        }
        if (batchCount == 0 && replacesFirst < 0) {
            throw new IllegalStateException("no batch appended to " + file);
        }
        if (batchCount == 0) {
            // a compaction that removed every record of the run still stands for its range
            openWriter(null);
        } else if (replacesFirst >= 0) {
            if (firstOffset < replacesFirst || lastOffset > replacesLast) {
                throw new IllegalStateException(
                        "batches "
                                + firstOffset
                                + ".."
                                + lastOffset
                                + " of "
                                + file
                                + " lie outside the replaced range "
                                + replacesFirst
                                + ".."
                                + replacesLast);
            }
        }
        if (replacesFirst >= 0) {
            firstOffset = replacesFirst;
            lastOffset = replacesLast;
        }
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put(
                ColdLayout.META_FORMAT_VERSION,
                Integer.toString(
                        typedRows == null
                                ? ColdLayout.UNTYPED_FORMAT_VERSION
                                : ColdLayout.TYPED_FORMAT_VERSION));
        meta.put(ColdLayout.META_TOPIC, topic);
        meta.put(ColdLayout.META_PARTITION, Integer.toString(partition));
        meta.put(ColdLayout.META_FIRST_OFFSET, Long.toString(firstOffset));
        meta.put(ColdLayout.META_LAST_OFFSET, Long.toString(lastOffset));
        long minTs = recordCount == 0 ? -1 : minTimestamp;
        long maxTs = recordCount == 0 ? -1 : maxTimestamp;
        meta.put(ColdLayout.META_MIN_TIMESTAMP, Long.toString(minTs));
        meta.put(ColdLayout.META_MAX_TIMESTAMP, Long.toString(maxTs));
        meta.put(ColdLayout.META_RECORD_COUNT, Long.toString(recordCount));
        meta.put(ColdLayout.META_BATCH_COUNT, Long.toString(batchCount));
        meta.put(ColdLayout.META_SOURCE_BYTES, Long.toString(sourceBytes));
        if (typedRows != null) {
            typedRows.putMetadata(meta);
        }
        if (replacesFirst >= 0) {
            meta.put(ColdLayout.META_COMPACTED_REPLACES, replacesFirst + "-" + replacesLast);
        }
        writeSupport.finalMetadata(meta);
        finished = true;
        closed = true;
        writer.close();
        buffers.close();
        return new WrittenObject(
                file,
                topic,
                partition,
                firstOffset,
                lastOffset,
                minTs,
                maxTs,
                recordCount,
                batchCount,
                sourceBytes,
                Files.size(file));
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("writer of " + file + " is closed");
        }
    }

    /** Aborts an unfinished file (deleting it); no-op after {@link #finish()}. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (writer != null) {
                writer.close();
            }
        } catch (IOException | RuntimeException e) {
            // the partial file is deleted below anyway
        } finally {
            buffers.close();
            if (!finished) {
                Files.deleteIfExists(file);
            }
        }
    }

    /** parquet-mr builder bound to our write support. */
    static final class Builder extends ParquetWriter.Builder<ColdRow, Builder> {
        private final WriteSupport<ColdRow> support;

        Builder(OutputFile file, WriteSupport<ColdRow> support) {
            super(file);
            this.support = support;
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        protected WriteSupport<ColdRow> getWriteSupport(org.apache.hadoop.conf.Configuration c) {
            return support;
        }

        @Override
        protected WriteSupport<ColdRow> getWriteSupport(ParquetConfiguration conf) {
            return support;
        }
    }
}
