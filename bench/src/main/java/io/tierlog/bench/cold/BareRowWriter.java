package io.tierlog.bench.cold;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;

/**
 * The yardstick of the compaction benchmark: a bare parquet-java writer that writes already decoded
 * rows (plain Java objects, no Kafka decoding) with the same schema and the same writer settings as
 * tierlog's {@code ParquetLogWriter} (read from an object that writer produced). It is the limit
 * for our stack: tierlog's writer does the same Parquet work plus decoding Kafka batches.
 *
 * <p>Not thread-safe.
 */
final class BareRowWriter {
    private BareRowWriter() {}

    /** One pre-decoded row: the record plus its batch fields. */
    record Row(
            long offset,
            long timestampMs,
            byte[] key,
            byte[] value,
            long batchBaseOffset,
            int lastOffsetDelta,
            int leaderEpoch,
            long producerId,
            int producerEpoch,
            int baseSequence,
            int attributes,
            long baseTimestamp,
            long maxTimestamp) {}

    /** Writes {@code rows} to {@code file} with {@code schema} (tierlog's layout). */
    static void write(Path file, MessageType schema, Row[] rows) throws IOException {
        PlainParquetConfiguration conf = new PlainParquetConfiguration();
        conf.setInt("parquet.compression.codec.zstd.level", 3);
        Builder b =
                new Builder(new LocalOutputFile(file), new Support(schema))
                        .withConf(conf)
                        .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                        .withCompressionCodec(CompressionCodecName.ZSTD)
                        .withRowGroupSize(64L << 20)
                        .withPageSize(1 << 20)
                        .withPageRowCountLimit(10_000)
                        .withDictionaryEncoding(true)
                        .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
                        .withPageWriteChecksumEnabled(true)
                        .withSizeStatisticsEnabled(false)
                        .withValidation(false)
                        .withDictionaryEncoding("offset", false)
                        .withDictionaryEncoding("timestamp", false)
                        .withDictionaryEncoding("value", false)
                        .withStatisticsEnabled("key", false)
                        .withStatisticsEnabled("value", false)
                        .withStatisticsEnabled("headers.list.element.key", false)
                        .withStatisticsEnabled("headers.list.element.value", false);
        try (ParquetWriter<Row> w = b.build()) {
            for (Row r : rows) {
                w.write(r);
            }
        }
    }

    private static final class Builder extends ParquetWriter.Builder<Row, Builder> {
        private final Support support;

        Builder(LocalOutputFile file, Support support) {
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

    /** Writes the 21 columns of the layout from a {@link Row} (no headers in the benchmark). */
    private static final class Support extends WriteSupport<Row> {
        private final MessageType schema;
        private RecordConsumer c;

        Support(MessageType schema) {
            this.schema = schema;
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
            c.startMessage();
            longField("offset", 0, r.offset());
            longField("timestamp", 1, r.timestampMs() * 1000);
            if (r.key() != null) {
                c.startField("key", 2);
                c.addBinary(Binary.fromConstantByteArray(r.key()));
                c.endField("key", 2);
            }
            if (r.value() != null) {
                c.startField("value", 3);
                c.addBinary(Binary.fromConstantByteArray(r.value()));
                c.endField("value", 3);
            }
            c.startField("headers", 4);
            c.startGroup();
            c.endGroup();
            c.endField("headers", 4);
            longField("batch_base_offset", 5, r.batchBaseOffset());
            intField("batch_last_offset_delta", 6, r.lastOffsetDelta());
            intField("batch_partition_leader_epoch", 7, r.leaderEpoch());
            longField("batch_producer_id", 8, r.producerId());
            intField("batch_producer_epoch", 9, r.producerEpoch());
            intField("batch_base_sequence", 10, r.baseSequence());
            intField("batch_attributes", 11, r.attributes());
            longField("batch_base_timestamp", 12, r.baseTimestamp());
            longField("batch_max_timestamp", 13, r.maxTimestamp());
            intField("batch_compression", 14, r.attributes() & 7);
            c.startField("batch_is_transactional", 15);
            c.addBoolean((r.attributes() & 0x10) != 0);
            c.endField("batch_is_transactional", 15);
            c.startField("batch_is_control", 16);
            c.addBoolean((r.attributes() & 0x20) != 0);
            c.endField("batch_is_control", 16);
            longField("batch_last_offset", 17, r.batchBaseOffset() + r.lastOffsetDelta());
            c.endMessage();
        }

        private void longField(String name, int i, long v) {
            c.startField(name, i);
            c.addLong(v);
            c.endField(name, i);
        }

        private void intField(String name, int i, int v) {
            c.startField(name, i);
            c.addInteger(v);
            c.endField(name, i);
        }
    }
}
