package io.tierlog.cold;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * The yardstick of the compaction benchmark: a bare parquet-java writer (record API) that writes
 * rows decoded beforehand (plain Java objects: no Kafka decoding in the measured time) into the
 * layout of tierlog's {@link ParquetLogWriter}. It is the limit for a writer built on parquet-mr's
 * record API: tierlog's writer does the same Parquet work plus decoding Kafka batches.
 *
 * <p>It cannot drift from what tierlog writes: it lives in the cold tier's package (in the bench
 * module) to take the schema and its column order from {@link ColdLayout#SCHEMA}, and the codec,
 * page, row-group, encoding, statistics and checksum settings and the page row limit from {@link
 * ParquetLogWriter#configure} and {@link ParquetLogWriter#pageRowLimit}. Its columns are written in
 * the schema's order by name, so a new column it does not know fails the first write (and the bench
 * smoke test); {@code BareRowWriterEquivalenceTest} checks that both writers produce the same
 * schema, the same column chunks and pages, and the same rows. No {@code tierlog.*} file metadata.
 *
 * <p>Thread-safety: stateless; every {@link #write} call has its own parquet writer.
 */
public final class BareRowWriter {
    private BareRowWriter() {}

    /**
     * One decoded row: a record plus its batch fields, as {@code ColdLayout} stores them.
     *
     * @param timestampMs the record timestamp as consumers see it (the batch max timestamp for
     *     LogAppendTime)
     * @param attributes the raw batch attributes (codec, timestamp type, transactional, control,
     *     delete horizon)
     */
    public record Row(
            long offset,
            long timestampMs,
            byte[] key,
            byte[] value,
            Header[] headers,
            long batchBaseOffset,
            int batchLastOffsetDelta,
            int partitionLeaderEpoch,
            long producerId,
            short producerEpoch,
            int baseSequence,
            short attributes,
            long batchBaseTimestamp,
            long batchMaxTimestamp) {}

    /** Decoded rows of a run of batches and the page row limit tierlog would write them with. */
    public record Rows(Row[] rows, int pageRowLimit) {}

    /**
     * Decodes {@code batches} (in-memory magic v2 batches, offset order) into rows as {@link
     * ParquetLogWriter#append} does, and picks the page row limit tierlog would pick for them under
     * {@code options}.
     */
    public static Rows decode(List<? extends RecordBatch> batches, ColdTierOptions options) {
        if (batches.isEmpty()) {
            throw new IllegalArgumentException("no batches");
        }
        List<Row> rows = new ArrayList<>();
        for (RecordBatch batch : batches) {
            DefaultRecordBatch b = (DefaultRecordBatch) batch;
            boolean logAppendTime = b.timestampType() == TimestampType.LOG_APPEND_TIME;
            short attributes = RowBatchBuilder.attributesOf(b);
            for (Record r : b) {
                rows.add(
                        new Row(
                                r.offset(),
                                logAppendTime ? b.maxTimestamp() : r.timestamp(),
                                r.hasKey() ? bytes(r.key()) : null,
                                r.hasValue() ? bytes(r.value()) : null,
                                r.headers(),
                                b.baseOffset(),
                                (int) (b.lastOffset() - b.baseOffset()),
                                b.partitionLeaderEpoch(),
                                b.producerId(),
                                b.producerEpoch(),
                                b.baseSequence(),
                                attributes,
                                b.baseTimestamp(),
                                b.maxTimestamp()));
            }
        }
        return new Rows(
                rows.toArray(new Row[0]), ParquetLogWriter.pageRowLimit(options, batches.get(0)));
    }

    /** Writes {@code rows} to {@code file} (replacing it) with tierlog's settings. */
    public static void write(Path file, Rows rows, ColdTierOptions options) throws IOException {
        write(file, rows, options, ColdLayout.SCHEMA);
    }

    /**
     * As {@link #write(Path, Rows, ColdTierOptions)} with {@code schema} instead of the layout's.
     */
    static void write(Path file, Rows rows, ColdTierOptions options, MessageType schema)
            throws IOException {
        Builder b =
                ParquetLogWriter.configure(
                        new Builder(new LocalOutputFile(file), new Support(schema)),
                        options,
                        rows.pageRowLimit());
        try (ParquetWriter<Row> w = b.build()) {
            for (Row r : rows.rows()) {
                w.write(r);
            }
        }
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    private static final class Builder extends ParquetWriter.Builder<Row, Builder> {
        private final Support support;

        Builder(OutputFile file, Support support) {
            super(file);
            this.support = support;
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        protected WriteSupport<Row> getWriteSupport(Configuration conf) {
            return support;
        }

        @Override
        protected WriteSupport<Row> getWriteSupport(ParquetConfiguration conf) {
            return support;
        }
    }

    /** Writes one top-level column of a row (index = its position in the schema). */
    @FunctionalInterface
    private interface Column {
        void write(RecordConsumer c, Row r);
    }

    /** Writes every top-level column of {@code schema}, in the schema's order, by name. */
    private static final class Support extends WriteSupport<Row> {
        private final MessageType schema;
        private final Column[] columns;
        private RecordConsumer c;

        Support(MessageType schema) {
            this.schema = schema;
            List<Type> fields = schema.getFields();
            columns = new Column[fields.size()];
            for (int i = 0; i < columns.length; i++) {
                columns[i] = column(fields.get(i), i);
            }
        }

        @Override
        public WriteContext init(Configuration configuration) {
            return new WriteContext(schema, Map.of());
        }

        @Override
        public WriteContext init(ParquetConfiguration configuration) {
            return new WriteContext(schema, Map.of());
        }

        @Override
        public void prepareForWrite(RecordConsumer recordConsumer) {
            c = recordConsumer;
        }

        @Override
        public void write(Row r) {
            RecordConsumer rc = c;
            rc.startMessage();
            for (Column col : columns) {
                col.write(rc, r);
            }
            rc.endMessage();
        }

        private static Column column(Type field, int i) {
            String n = field.getName();
            switch (n) {
                case ColdLayout.OFFSET:
                    return (c, r) -> longField(c, n, i, r.offset());
                case ColdLayout.TIMESTAMP:
                    return (c, r) -> longField(c, n, i, r.timestampMs() * 1000);
                case ColdLayout.KEY:
                    return (c, r) -> binaryField(c, n, i, r.key());
                case ColdLayout.VALUE:
                    return (c, r) -> binaryField(c, n, i, r.value());
                case ColdLayout.HEADERS:
                    return headers(field.asGroupType(), i);
                case ColdLayout.BATCH_BASE_OFFSET:
                    return (c, r) -> longField(c, n, i, r.batchBaseOffset());
                case ColdLayout.BATCH_LAST_OFFSET_DELTA:
                    return (c, r) -> intField(c, n, i, r.batchLastOffsetDelta());
                case ColdLayout.BATCH_PARTITION_LEADER_EPOCH:
                    return (c, r) -> intField(c, n, i, r.partitionLeaderEpoch());
                case ColdLayout.BATCH_PRODUCER_ID:
                    return (c, r) -> longField(c, n, i, r.producerId());
                case ColdLayout.BATCH_PRODUCER_EPOCH:
                    return (c, r) -> intField(c, n, i, r.producerEpoch());
                case ColdLayout.BATCH_BASE_SEQUENCE:
                    return (c, r) -> intField(c, n, i, r.baseSequence());
                case ColdLayout.BATCH_ATTRIBUTES:
                    return (c, r) -> intField(c, n, i, r.attributes());
                case ColdLayout.BATCH_BASE_TIMESTAMP:
                    return (c, r) -> longField(c, n, i, r.batchBaseTimestamp());
                case ColdLayout.BATCH_MAX_TIMESTAMP:
                    return (c, r) -> longField(c, n, i, r.batchMaxTimestamp());
                case ColdLayout.BATCH_COMPRESSION:
                    return (c, r) ->
                            intField(
                                    c,
                                    n,
                                    i,
                                    r.attributes() & RowBatchBuilder.COMPRESSION_CODEC_MASK);
                case ColdLayout.BATCH_IS_TRANSACTIONAL:
                    return (c, r) ->
                            booleanField(
                                    c,
                                    n,
                                    i,
                                    (r.attributes() & RowBatchBuilder.TRANSACTIONAL_FLAG_MASK)
                                            != 0);
                case ColdLayout.BATCH_IS_CONTROL:
                    return (c, r) ->
                            booleanField(
                                    c,
                                    n,
                                    i,
                                    (r.attributes() & RowBatchBuilder.CONTROL_FLAG_MASK) != 0);
                case ColdLayout.BATCH_LAST_OFFSET:
                    return (c, r) ->
                            longField(c, n, i, r.batchBaseOffset() + r.batchLastOffsetDelta());
                case ColdLayout.BATCH_TXN_STATE:
                    // the outcome ParquetLogWriter.append(batch) assumes for a data batch; the
                    // benchmark's batches hold no transaction markers
                    return (c, r) -> {
                        TxnState s =
                                (r.attributes() & RowBatchBuilder.TRANSACTIONAL_FLAG_MASK) != 0
                                        ? TxnState.COMMITTED
                                        : TxnState.NONE;
                        c.startField(n, i);
                        c.addBinary(Binary.fromConstantByteArray(s.columnBytes()));
                        c.endField(n, i);
                    };
                default:
                    throw new IllegalStateException(
                            "the bare writer does not know column "
                                    + n
                                    + " of the cold layout: add it to BareRowWriter");
            }
        }

        /** The headers LIST: repeated group {@code list} of {@code element} (key, value). */
        private static Column headers(GroupType headers, int i) {
            String name = headers.getName();
            GroupType list = headers.getType(0).asGroupType();
            GroupType element = list.getType(0).asGroupType();
            String listName = list.getName();
            String elementName = element.getName();
            int k = element.getFieldIndex(ColdLayout.KEY);
            int v = element.getFieldIndex(ColdLayout.VALUE);
            return (c, r) -> {
                c.startField(name, i);
                c.startGroup();
                Header[] hs = r.headers();
                if (hs.length > 0) {
                    c.startField(listName, 0);
                    for (Header h : hs) {
                        c.startGroup();
                        c.startField(elementName, 0);
                        c.startGroup();
                        c.startField(ColdLayout.KEY, k);
                        c.addBinary(Binary.fromString(h.key()));
                        c.endField(ColdLayout.KEY, k);
                        if (h.value() != null) {
                            c.startField(ColdLayout.VALUE, v);
                            c.addBinary(Binary.fromConstantByteArray(h.value()));
                            c.endField(ColdLayout.VALUE, v);
                        }
                        c.endGroup();
                        c.endField(elementName, 0);
                        c.endGroup();
                    }
                    c.endField(listName, 0);
                }
                c.endGroup();
                c.endField(name, i);
            };
        }

        private static void longField(RecordConsumer c, String name, int i, long v) {
            c.startField(name, i);
            c.addLong(v);
            c.endField(name, i);
        }

        private static void intField(RecordConsumer c, String name, int i, int v) {
            c.startField(name, i);
            c.addInteger(v);
            c.endField(name, i);
        }

        private static void booleanField(RecordConsumer c, String name, int i, boolean v) {
            c.startField(name, i);
            c.addBoolean(v);
            c.endField(name, i);
        }

        /** A null array is a null (absent) value of the optional column. */
        private static void binaryField(RecordConsumer c, String name, int i, byte[] v) {
            if (v != null) {
                c.startField(name, i);
                c.addBinary(Binary.fromConstantByteArray(v));
                c.endField(name, i);
            }
        }
    }
}
