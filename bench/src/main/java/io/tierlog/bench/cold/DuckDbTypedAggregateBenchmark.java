package io.tierlog.bench.cold;

import io.tierlog.catalog.Catalog;
import io.tierlog.cold.ColdTierOptions;
import io.tierlog.cold.ParquetLogWriter;
import io.tierlog.cold.TypedColumns;
import io.tierlog.registry.CatalogSchemaRegistry;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.typed.RegistryValueTyper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What typed columns buy an analyst: DuckDB's {@code sum(amount)} over one cold object of JSON
 * Schema values, read from the typed column {@code value_record.amount} ({@code typedColumn}) or
 * parsed out of the raw JSON bytes with {@code json_extract} ({@code rawJson}, what a reader of an
 * untyped object must do). The setup checks that both queries give the sum of the values written.
 *
 * <pre>
 * java -cp "bench/target/classes:$(cat bench/target/bench.classpath)" org.openjdk.jmh.Main \
 *     'io.tierlog.bench.cold.DuckDbTypedAggregateBenchmark' -f 1 -wi 2 -i 3 -w 2s -r 2s
 * </pre>
 *
 * <p>Thread-safety: JMH benchmark state, one thread.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@State(Scope.Benchmark)
public class DuckDbTypedAggregateBenchmark {
    static final String SCHEMA =
            "{\"type\":\"object\",\"properties\":{"
                    + "\"id\":{\"type\":\"string\"},"
                    + "\"customer\":{\"type\":\"string\"},"
                    + "\"amount\":{\"type\":\"integer\"},"
                    + "\"currency\":{\"type\":\"string\"},"
                    + "\"status\":{\"type\":\"string\"}}}";

    private static final String TYPED = "SELECT sum(value_record.amount) FROM read_parquet('%s')";

    // the raw value is the Confluent header (5 bytes), then the JSON text
    private static final String RAW =
            "SELECT sum(CAST(json_extract_string(decode(value[6:]), '$.amount') AS BIGINT))"
                    + " FROM read_parquet('%s')";

    /** Records in the object. */
    @Param({"1000000"})
    public int records;

    private Path dir;
    private Path file;
    private Connection duck;
    private String typedSql;
    private String rawSql;

    @Setup(Level.Trial)
    public void writeObject() throws Exception {
        String base = System.getProperty("tierlog.bench.dir", System.getProperty("java.io.tmpdir"));
        dir = Files.createTempDirectory(Files.createDirectories(Path.of(base)), "duck-typed-");
        file = dir.resolve("object.parquet");
        long expected;
        try (Catalog catalog = Catalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"));
                CatalogSchemaRegistry registry = CatalogSchemaRegistry.open(catalog)) {
            int id =
                    registry.register("json-value", SchemaType.JSON, SCHEMA, List.of(), false)
                            .schema()
                            .id();
            TypedColumns typed =
                    new TypedColumns(
                            RegistryValueTyper.forSubject(
                                            registry,
                                            "json-value",
                                            RegistryValueTyper.VALUE_FIELD_ID_BASE,
                                            false)
                                    .orElseThrow(),
                            null,
                            false);
            expected = write(id, typed);
        }
        Properties props = new Properties();
        props.setProperty("autoinstall_known_extensions", "false");
        props.setProperty("autoload_known_extensions", "false");
        duck = DriverManager.getConnection("jdbc:duckdb:", props);
        String f = file.toString().replace("'", "''");
        typedSql = String.format(Locale.ROOT, TYPED, f);
        rawSql = String.format(Locale.ROOT, RAW, f);
        long typed = sum(typedSql);
        long raw = sum(rawSql);
        if (typed != expected || raw != expected) {
            throw new IllegalStateException(
                    "sums differ: written " + expected + ", typed " + typed + ", raw " + raw);
        }
    }

    private long write(int id, TypedColumns typed) throws IOException {
        Random rnd = new Random(7);
        String[] currencies = {"EUR", "USD", "GBP"};
        String[] statuses = {"created", "paid", "shipped", "delivered"};
        long sum = 0;
        long offset = 0;
        try (ParquetLogWriter w =
                ParquetLogWriter.open(file, "bench", 0, ColdTierOptions.defaults(), typed)) {
            while (offset < records) {
                int n = (int) Math.min(150, records - offset);
                MemoryRecordsBuilder b =
                        MemoryRecords.builder(
                                ByteBuffer.allocate(n * 200 + 256),
                                Compression.NONE,
                                TimestampType.CREATE_TIME,
                                offset);
                for (int i = 0; i < n; i++) {
                    long amount = rnd.nextInt(1_000_000);
                    sum += amount;
                    String json =
                            "{\"id\":\"order-"
                                    + offset
                                    + "\",\"customer\":\"customer-"
                                    + rnd.nextInt(10_000)
                                    + "\",\"amount\":"
                                    + amount
                                    + ",\"currency\":\""
                                    + currencies[rnd.nextInt(currencies.length)]
                                    + "\",\"status\":\""
                                    + statuses[rnd.nextInt(statuses.length)]
                                    + "\"}";
                    byte[] body = json.getBytes(StandardCharsets.UTF_8);
                    byte[] v =
                            ByteBuffer.allocate(5 + body.length)
                                    .put((byte) 0)
                                    .putInt(id)
                                    .put(body)
                                    .array();
                    b.appendWithOffset(offset++, 1_764_000_000_000L + offset, null, v);
                }
                w.append(b.build().firstBatch());
            }
            w.finish();
        }
        return sum;
    }

    private long sum(String sql) throws SQLException {
        try (Statement s = duck.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Benchmark
    public long typedColumn() throws SQLException {
        return sum(typedSql);
    }

    @Benchmark
    public long rawJson() throws SQLException {
        return sum(rawSql);
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        duck.close();
        System.out.printf(
                Locale.ROOT,
                "%n[duckdb-typed] records=%d object=%.2f MiB%n",
                records,
                Files.size(file) / 1048576.0);
        Files.deleteIfExists(file);
    }
}
