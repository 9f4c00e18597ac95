package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.bench.cold.CompactionBenchmark;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The compaction benchmark's yardstick ({@link BareRowWriter}) writes what tierlog's {@link
 * ParquetLogWriter} writes for the same batches: the same schema and column order, column chunk by
 * column chunk the same codec, encodings, statistics, page boundaries, page checksums and bytes,
 * and the same rows. A change to the cold layout or the writer settings that the bare writer does
 * not follow fails here, not silently in a benchmark figure.
 */
class BareRowWriterEquivalenceTest {
    private static final ColdTierOptions OPTIONS = ColdTierOptions.defaults();

    @TempDir Path dir;

    @ParameterizedTest(name = "{0} B records, source {1}")
    @CsvSource({"100, none", "1024, none", "1024, zstd"})
    void bareWriterWritesTheSameObjectAsTierlog(int recordBytes, String sourceCodec)
            throws IOException {
        List<RecordBatch> batches =
                withOddBatches(
                        CompactionBenchmark.segment(
                                recordBytes, CompressionType.forName(sourceCodec), 1 << 20));
        Path tierlog = dir.resolve("tierlog.parquet");
        Path bare = dir.resolve("bare.parquet");
        try (ParquetLogWriter w = ParquetLogWriter.open(tierlog, "t", 0, OPTIONS)) {
            for (RecordBatch b : batches) {
                w.append(b);
            }
            w.finish();
        }
        BareRowWriter.Rows rows = BareRowWriter.decode(batches, OPTIONS);
        BareRowWriter.write(bare, rows, OPTIONS);

        try (ParquetFileReader t = open(tierlog);
                ParquetFileReader b = open(bare)) {
            MessageType schema = t.getFileMetaData().getSchema();
            assertThat(schema).isEqualTo(ColdLayout.SCHEMA);
            // toString spells out field ids and logical types as well
            assertThat(b.getFileMetaData().getSchema().toString()).isEqualTo(schema.toString());
            assertSameChunksAndPages(tierlog, t, bare, b);
        }
        List<String> tierlogRows = rows(tierlog);
        assertThat(tierlogRows).hasSize(rows.rows().length).hasSizeGreaterThan(1000);
        assertThat(rows(bare)).isEqualTo(tierlogRows);
    }

    @Test
    void aColumnTheBareWriterDoesNotKnowFailsTheWrite() {
        MessageType grown =
                Types.buildMessage()
                        .addFields(ColdLayout.SCHEMA.getFields().toArray(new Type[0]))
                        .optional(org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT64)
                        .named("record_crc")
                        .named("kafka_record");
        BareRowWriter.Rows rows =
                BareRowWriter.decode(
                        batches(CompactionBenchmark.segment(100, CompressionType.NONE, 64 << 10)),
                        OPTIONS);
        assertThatThrownBy(
                        () -> BareRowWriter.write(dir.resolve("x.parquet"), rows, OPTIONS, grown))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("record_crc");
    }

    private static void assertSameChunksAndPages(
            Path tierlogFile, ParquetFileReader t, Path bareFile, ParquetFileReader b)
            throws IOException {
        ParquetMetadata tm = t.getFooter();
        ParquetMetadata bm = b.getFooter();
        assertThat(bm.getBlocks()).hasSameSizeAs(tm.getBlocks());
        for (int g = 0; g < tm.getBlocks().size(); g++) {
            BlockMetaData tg = tm.getBlocks().get(g);
            BlockMetaData bg = bm.getBlocks().get(g);
            assertThat(bg.getRowCount()).isEqualTo(tg.getRowCount());
            assertThat(bg.getColumns()).hasSameSizeAs(tg.getColumns());
            for (int c = 0; c < tg.getColumns().size(); c++) {
                ColumnChunkMetaData tc = tg.getColumns().get(c);
                ColumnChunkMetaData bc = bg.getColumns().get(c);
                String col = tc.getPath().toDotString();
                assertThat(bc.getPath()).as(col).isEqualTo(tc.getPath());
                assertThat(bc.getCodec()).as(col).isEqualTo(tc.getCodec());
                assertThat(bc.getEncodings()).as(col).isEqualTo(tc.getEncodings());
                assertThat(bc.getValueCount()).as(col).isEqualTo(tc.getValueCount());
                assertThat(bc.hasDictionaryPage()).as(col).isEqualTo(tc.hasDictionaryPage());
                assertThat(bc.getStatistics().isEmpty())
                        .as(col + " statistics")
                        .isEqualTo(tc.getStatistics().isEmpty());
                assertThat(bc.getTotalUncompressedSize())
                        .as(col + " uncompressed bytes")
                        .isEqualTo(tc.getTotalUncompressedSize());
                // same codec level and page settings: byte-identical pages
                assertThat(bc.getTotalSize()).as(col + " bytes").isEqualTo(tc.getTotalSize());
                assertThat(b.readColumnIndex(bc) == null)
                        .as(col + " column index absent")
                        .isEqualTo(t.readColumnIndex(tc) == null);
                assertThat(pageFirstRows(b.readOffsetIndex(bc)))
                        .as(col + " page boundaries")
                        .isEqualTo(pageFirstRows(t.readOffsetIndex(tc)));
                assertThat(firstPageHasCrc(bareFile, bc))
                        .as(col + " page checksum")
                        .isEqualTo(firstPageHasCrc(tierlogFile, tc))
                        .isTrue();
            }
        }
    }

    private static List<Long> pageFirstRows(OffsetIndex index) {
        List<Long> out = new ArrayList<>();
        for (int p = 0; p < index.getPageCount(); p++) {
            out.add(index.getFirstRowIndex(p));
        }
        return out;
    }

    private static boolean firstPageHasCrc(Path file, ColumnChunkMetaData chunk)
            throws IOException {
        try (SeekableInputStream in = new LocalInputFile(file).newStream()) {
            in.seek(chunk.getStartingPos());
            PageHeader h = Util.readPageHeader(in);
            return h.isSetCrc();
        }
    }

    private static ParquetFileReader open(Path file) throws IOException {
        return ParquetFileReader.open(
                new LocalInputFile(file),
                ParquetReadOptions.builder(new PlainParquetConfiguration()).build());
    }

    /** Every row of {@code file} as text, all columns, bytes spelled out. */
    private static List<String> rows(Path file) throws IOException {
        List<String> out = new ArrayList<>();
        try (ParquetFileReader r = open(file)) {
            MessageType schema = r.getFileMetaData().getSchema();
            PageReadStore pages;
            while ((pages = r.readNextRowGroup()) != null) {
                RecordReader<Group> rr =
                        new ColumnIOFactory()
                                .getColumnIO(schema)
                                .getRecordReader(pages, new GroupRecordConverter(schema));
                for (long i = 0; i < pages.getRowCount(); i++) {
                    StringBuilder sb = new StringBuilder();
                    format(rr.read(), sb);
                    out.add(sb.toString());
                }
            }
        }
        return out;
    }

    private static void format(Group g, StringBuilder sb) {
        GroupType type = g.getType();
        sb.append('{');
        for (int f = 0; f < type.getFieldCount(); f++) {
            Type ft = type.getType(f);
            sb.append(ft.getName()).append('=');
            for (int i = 0; i < g.getFieldRepetitionCount(f); i++) {
                if (!ft.isPrimitive()) {
                    format(g.getGroup(f, i), sb);
                } else if (ft.asPrimitiveType().getPrimitiveTypeName()
                        == org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BINARY) {
                    sb.append(Arrays.toString(g.getBinary(f, i).getBytes()));
                } else {
                    sb.append(g.getValueToString(f, i));
                }
                sb.append(';');
            }
            sb.append(' ');
        }
        sb.append('}');
    }

    private static List<RecordBatch> batches(List<MemoryRecords> segment) {
        List<RecordBatch> out = new ArrayList<>();
        for (MemoryRecords m : segment) {
            m.batches().forEach(out::add);
        }
        return out;
    }

    /**
     * {@code segment} followed by batches the benchmark's segment lacks: headers, a null key, a
     * tombstone, a LogAppendTime batch and a transactional batch.
     */
    private static List<RecordBatch> withOddBatches(List<MemoryRecords> segment) {
        List<RecordBatch> out = batches(segment);
        long next = out.get(out.size() - 1).lastOffset() + 1;
        long ts = 1_764_000_100_000L;
        MemoryRecordsBuilder withHeaders =
                MemoryRecords.builder(
                        ByteBuffer.allocate(4096),
                        Compression.NONE,
                        TimestampType.CREATE_TIME,
                        next);
        withHeaders.append(
                new SimpleRecord(
                        ts,
                        "k".getBytes(StandardCharsets.UTF_8),
                        "v".getBytes(StandardCharsets.UTF_8),
                        new RecordHeader[] {
                            new RecordHeader("h1", "x".getBytes(StandardCharsets.UTF_8)),
                            new RecordHeader("h2", null)
                        }));
        withHeaders.append(new SimpleRecord(ts + 1, null, "no key".getBytes()));
        withHeaders.append(new SimpleRecord(ts + 2, "gone".getBytes(), null));
        MemoryRecords a = withHeaders.build();
        a.batches().forEach(out::add);
        next = out.get(out.size() - 1).lastOffset() + 1;
        MemoryRecordsBuilder logAppend =
                MemoryRecords.builder(
                        ByteBuffer.allocate(4096),
                        RecordBatch.CURRENT_MAGIC_VALUE,
                        Compression.NONE,
                        TimestampType.LOG_APPEND_TIME,
                        next,
                        ts + 50,
                        RecordBatch.NO_PRODUCER_ID,
                        RecordBatch.NO_PRODUCER_EPOCH,
                        RecordBatch.NO_SEQUENCE,
                        false,
                        RecordBatch.NO_PARTITION_LEADER_EPOCH);
        logAppend.append(new SimpleRecord(ts + 3, "a".getBytes(), "b".getBytes()));
        logAppend.build().batches().forEach(out::add);
        next = out.get(out.size() - 1).lastOffset() + 1;
        MemoryRecordsBuilder txn =
                MemoryRecords.builder(
                        ByteBuffer.allocate(4096),
                        RecordBatch.CURRENT_MAGIC_VALUE,
                        Compression.NONE,
                        TimestampType.CREATE_TIME,
                        next,
                        ts + 60,
                        4711L,
                        (short) 3,
                        17,
                        true,
                        7);
        txn.append(new SimpleRecord(ts + 4, "t".getBytes(), "x".getBytes()));
        txn.append(new SimpleRecord(ts + 5, "t".getBytes(), "y".getBytes()));
        txn.build().batches().forEach(out::add);
        return out;
    }
}
