package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.cold.testing.LocalDirObjectStore;
import io.tierlog.cold.testing.ToyTyper;
import io.tierlog.common.typed.TypedType;
import io.tierlog.common.typed.ValueRebuilder;
import io.tierlog.common.typed.ValueTyper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Typed columns (format 3) with the hand-written {@link ToyTyper}: the batches read back are the
 * ones written, byte for byte, with and without the one-copy path; values stored once are rebuilt
 * and CRC-checked; undecodable payloads keep their raw bytes and a reason; DuckDB reads the struct,
 * list and map columns and their field ids.
 */
class TypedColumnsTest {
    @TempDir Path dir;

    private static final TypedColumns ONE_COPY =
            new TypedColumns(new ToyTyper(), new ToyTyper(), true);
    private static final TypedColumns TWO_COPIES =
            new TypedColumns(new ToyTyper(), new ToyTyper(), false);

    /** Batches of toy payloads (values and keys), every codec, some null values and keys. */
    static List<MemoryRecords> toyBatches(long seed, int batches) {
        Random rnd = new Random(seed);
        List<MemoryRecords> out = new ArrayList<>();
        long offset = 0;
        long ts = 1_700_000_000_000L;
        for (int i = 0; i < batches; i++) {
            CompressionType codec = TestCodecs.pick(rnd);
            int n = 1 + rnd.nextInt(40);
            MemoryRecordsBuilder b =
                    MemoryRecords.builder(
                            ByteBuffer.allocate(n * 400 + 256),
                            Compression.of(codec).build(),
                            TimestampType.CREATE_TIME,
                            offset);
            for (int j = 0; j < n; j++) {
                byte[] v = rnd.nextInt(15) == 0 ? null : ToyTyper.randomPayload(rnd);
                byte[] k = rnd.nextInt(4) == 0 ? null : ToyTyper.randomPayload(rnd);
                RecordHeader[] h =
                        rnd.nextBoolean()
                                ? new RecordHeader[0]
                                : new RecordHeader[] {new RecordHeader("h", new byte[] {1, 2})};
                b.appendWithOffset(offset++, ts++, k, v, h);
            }
            out.add(b.build());
        }
        return out;
    }

    /** Tiny indirection so the codec choice stays deterministic per seed. */
    private static final class TestCodecs {
        static CompressionType pick(Random rnd) {
            CompressionType[] all = {
                CompressionType.NONE,
                CompressionType.ZSTD,
                CompressionType.LZ4,
                CompressionType.GZIP
            };
            return all[rnd.nextInt(all.length)];
        }
    }

    private WrittenObject write(
            Path file, List<MemoryRecords> input, TypedColumns typed, long[] counts)
            throws IOException {
        try (ParquetLogWriter w =
                ParquetLogWriter.open(file, "orders", 0, ColdTierOptions.defaults(), typed)) {
            for (MemoryRecords m : input) {
                w.append(m.firstBatch());
            }
            TypedCounts c = w.typedCounts();
            if (counts != null) {
                counts[0] = c.valuesTyped();
                counts[1] = c.valuesRebuilt();
                counts[2] = c.valueFailures().values().stream().mapToLong(Long::longValue).sum();
            }
            return w.finish();
        }
    }

    private static List<RecordBatch> readAll(ParquetLogReader reader, int maxBytes)
            throws IOException {
        List<RecordBatch> got = new ArrayList<>();
        long next = reader.firstOffset();
        while (next <= reader.lastOffset()) {
            boolean any = false;
            for (RecordBatch b : reader.read(next, maxBytes).batches()) {
                got.add(b);
                next = b.lastOffset() + 1;
                any = true;
            }
            if (!any) {
                break;
            }
        }
        return got;
    }

    private static List<RecordBatch> batchesOf(List<MemoryRecords> input) {
        List<RecordBatch> out = new ArrayList<>();
        input.forEach(m -> out.add(m.firstBatch()));
        return out;
    }

    @Test
    void oneCopyObjectsReadBackTheExactBatchesAndStoreRebuildableValuesOnce() throws Exception {
        List<MemoryRecords> input = toyBatches(7, 60);
        Path file = dir.resolve("one.parquet");
        long[] counts = new long[3];
        write(file, input, ONE_COPY, counts);
        LocalDirObjectStore store = new LocalDirObjectStore(dir);
        byte[] bytes = Files.readAllBytes(file);
        store.put("one", bytes);
        ParquetLogReader reader =
                new ParquetLogReader(store, "one", bytes.length, ToyTyper.rebuilder());
        for (int maxBytes : new int[] {1, 5_000, Integer.MAX_VALUE}) {
            BatchFidelityPropertyTest.assertSameBatches(
                    readAll(reader, maxBytes), batchesOf(input));
        }
        assertThat(reader.formatVersion()).isEqualTo(3);
        assertThat(counts[1]).as("values stored once").isPositive();
        assertThat(counts[0]).as("typed").isGreaterThan(counts[1]); // non-canonical ones exist
        assertThat(counts[2]).as("failed").isPositive();
        assertThat(reader.rebuiltValues()).isEqualTo(counts[1]);

        // the value column holds no bytes for the rows stored once
        try (Connection c = duck();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT count(*) FILTER (WHERE value_rebuilt),"
                                        + " count(*) FILTER (WHERE value_rebuilt AND value IS NOT"
                                        + " NULL), count(*) FILTER (WHERE value_error IS NOT NULL)"
                                        + " FROM read_parquet('"
                                        + file
                                        + "')")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).isEqualTo(counts[1]);
            assertThat(rs.getLong(2)).isZero();
            assertThat(rs.getLong(3)).isEqualTo(counts[2]);
        }
    }

    @Test
    void twoCopyObjectsKeepRawValuesAndStayOnTheColumnarReader() throws Exception {
        List<MemoryRecords> input = toyBatches(11, 40);
        Path file = dir.resolve("two.parquet");
        write(file, input, TWO_COPIES, null);
        LocalDirObjectStore store = new LocalDirObjectStore(dir);
        byte[] bytes = Files.readAllBytes(file);
        store.put("two", bytes);
        ParquetLogReader reader = new ParquetLogReader(store, "two", bytes.length);
        BatchFidelityPropertyTest.assertSameBatches(
                readAll(reader, Integer.MAX_VALUE), batchesOf(input));
        assertThat(reader.pageMap()).as("columnar reader").isNotNull();
        assertThat(reader.rebuiltValues()).isZero();
        assertThat(reader.formatVersion()).isEqualTo(3);
    }

    @Test
    void untypedObjectsStayFormatTwo() throws Exception {
        Path file = dir.resolve("plain.parquet");
        write(file, toyBatches(3, 5), TypedColumns.NONE, null);
        LocalDirObjectStore store = new LocalDirObjectStore(dir);
        byte[] bytes = Files.readAllBytes(file);
        store.put("plain", bytes);
        assertThat(new ParquetLogReader(store, "plain", bytes.length).formatVersion()).isEqualTo(2);
        assertThat(schemaOf(file).containsField(ColdLayout.VALUE_RECORD)).isFalse();
    }

    @Test
    void aReaderWithoutRebuilderRefusesValuesStoredOnceRatherThanReturnTombstones()
            throws Exception {
        Path file = dir.resolve("one.parquet");
        write(file, toyBatches(5, 20), ONE_COPY, null);
        LocalDirObjectStore store = new LocalDirObjectStore(dir);
        byte[] bytes = Files.readAllBytes(file);
        store.put("one", bytes);
        ParquetLogReader reader = new ParquetLogReader(store, "one", bytes.length);
        assertThatThrownBy(() -> reader.read(0, Integer.MAX_VALUE))
                .isInstanceOf(ObjectCorruptException.class)
                .hasStackTraceContaining("no value rebuilder");
    }

    @Test
    void aRebuiltValueThatIsNotTheBytesWrittenFailsItsCrc() throws Exception {
        Path file = dir.resolve("one.parquet");
        write(file, toyBatches(5, 20), ONE_COPY, null);
        LocalDirObjectStore store = new LocalDirObjectStore(dir);
        byte[] bytes = Files.readAllBytes(file);
        store.put("one", bytes);
        ValueRebuilder wrong =
                (id, struct, row) -> {
                    byte[] b = ToyTyper.rebuilder().rebuild(id, struct, row);
                    b[b.length - 1] ^= 1; // a rebuilder that drifted from the writer's encoding
                    return b;
                };
        ParquetLogReader reader = new ParquetLogReader(store, "one", bytes.length, wrong);
        assertThatThrownBy(() -> reader.read(0, Integer.MAX_VALUE))
                .isInstanceOf(ObjectCorruptException.class)
                .hasStackTraceContaining("fails its CRC-32C");
    }

    @Test
    void aTyperThatThrowsOrReturnsAMisfitRowNeverStallsTheWrite() throws Exception {
        ValueTyper bad =
                new ValueTyper() {
                    int n;

                    @Override
                    public TypedType.Struct struct() {
                        return ToyTyper.STRUCT;
                    }

                    @Override
                    public Typed type(ByteBuffer payload) {
                        if (n++ % 2 == 0) {
                            throw new IllegalStateException("typer bug");
                        }
                        return Typed.decoded(
                                1, new Object[] {1, "not a long", null, null, null}, true);
                    }
                };
        List<MemoryRecords> input = toyBatches(9, 10);
        Path file = dir.resolve("bad.parquet");
        long[] counts = new long[3];
        write(file, input, new TypedColumns(bad, null, true), counts);
        assertThat(counts[0]).isZero();
        assertThat(counts[1]).isZero();
        LocalDirObjectStore store = new LocalDirObjectStore(dir);
        byte[] bytes = Files.readAllBytes(file);
        store.put("bad", bytes);
        BatchFidelityPropertyTest.assertSameBatches(
                readAll(new ParquetLogReader(store, "bad", bytes.length), Integer.MAX_VALUE),
                batchesOf(input));
        try (Connection c = duck();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT count(*) FILTER (WHERE value_error LIKE 'typer failed%'),"
                                        + " count(*) FILTER (WHERE value_error LIKE '%does not"
                                        + " fit%'), count(value_record)"
                                        + " FROM read_parquet('"
                                        + file
                                        + "')")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).isPositive();
            assertThat(rs.getLong(2)).isPositive();
            assertThat(rs.getLong(3)).isZero();
        }
    }

    @Test
    void duckDbQueriesTheStructListAndMapColumnsAndSeesTheFieldIds() throws Exception {
        List<MemoryRecords> input = toyBatches(13, 50);
        Path file = dir.resolve("q.parquet");
        write(file, input, ONE_COPY, null);
        long sum = 0;
        long typed = 0;
        long tags = 0;
        long attrSum = 0;
        long withCity = 0;
        ToyTyper toy = new ToyTyper();
        for (MemoryRecords m : input) {
            for (Record r : m.firstBatch()) {
                if (!r.hasValue()) {
                    continue;
                }
                ValueTyper.Typed t = toy.type(r.value());
                if (t.row() == null) {
                    continue;
                }
                typed++;
                sum += t.row()[1] == null ? 0 : (Long) t.row()[1];
                tags += ((List<?>) t.row()[2]).size();
                for (Object v : ((Map<?, ?>) t.row()[3]).values()) {
                    attrSum += (Long) v;
                }
                withCity += t.row()[4] == null ? 0 : 1;
            }
        }
        try (Connection c = duck();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT count(value_record), coalesce(sum(value_record.amount), 0),"
                                        + " coalesce(sum(len(value_record.tags)), 0),"
                                        + " coalesce(sum(list_sum(map_values(value_record.attrs))),"
                                        + " 0), count(value_record.customer.city)"
                                        + " FROM read_parquet('"
                                        + file
                                        + "')")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).isEqualTo(typed);
            assertThat(rs.getLong(2)).isEqualTo(sum);
            assertThat(rs.getLong(3)).isEqualTo(tags);
            assertThat(rs.getLong(4)).isEqualTo(attrSum);
            assertThat(rs.getLong(5)).isEqualTo(withCity);
        }
        MessageType schema = schemaOf(file);
        GroupType record = schema.getType(ColdLayout.VALUE_RECORD).asGroupType();
        assertThat(record.getId().intValue()).isEqualTo(24);
        assertThat(record.getType("amount").getId().intValue()).isEqualTo(ToyTyper.BASE + 2);
        assertThat(TypedParquet.structOf(record)).isEqualTo(ToyTyper.STRUCT);
        assertThat(schema.getType(ColdLayout.KEY_RECORD).getId().intValue()).isEqualTo(28);
        assertThat(schema.getType(ColdLayout.VALUE_REBUILT).getId().intValue()).isEqualTo(26);
    }

    private static MessageType schemaOf(Path file) throws IOException {
        try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
            return r.getFooter().getFileMetaData().getSchema();
        }
    }

    private static Connection duck() throws Exception {
        Properties props = new Properties();
        props.setProperty("autoinstall_known_extensions", "false");
        props.setProperty("autoload_known_extensions", "false");
        return DriverManager.getConnection("jdbc:duckdb:", props);
    }
}
