package io.tierlog.bench.cold;

import io.tierlog.catalog.Catalog;
import io.tierlog.cold.ColdTierOptions;
import io.tierlog.cold.ParquetLogWriter;
import io.tierlog.cold.TypedColumns;
import io.tierlog.cold.TypedCounts;
import io.tierlog.cold.WrittenObject;
import io.tierlog.common.typed.ValueTyper;
import io.tierlog.registry.CatalogSchemaRegistry;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.typed.RegistryValueTyper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.openjdk.jmh.annotations.AuxCounters;
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
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Offload throughput with typed columns: a segment of Confluent-framed Avro order records
 * (producer-sized 16 KiB batches, values of about 100 bytes or 1 KiB: {@link #valueBytes})
 * converted to one Parquet object by {@link ParquetLogWriter}, {@code mode} = {@code untyped} (raw
 * bytes only, as before), {@code typed} (typed columns next to the raw bytes) or {@code oneCopy}
 * (typed columns; values whose re-encoding was verified stored once). The typer comes from a real
 * {@link CatalogSchemaRegistry} over a SQLite catalog, per object as the offload asks for it.
 *
 * <p>At the end of each trial it prints segment MiB per CPU-second of the benchmark thread
 * (measured iterations only), the object's size and its ratio to the segment, and how many values
 * were typed and stored once. Run:
 *
 * <pre>
 * mvn -q -B -DskipTests -Dspotless.check.skip=true -pl bench -am package
 * java -cp "bench/target/classes:$(cat bench/target/bench.classpath)" org.openjdk.jmh.Main \
 *     'io.tierlog.bench.cold.TypedOffloadBenchmark' -f 1 -wi 2 -i 3 -w 3s -r 3s
 * </pre>
 *
 * <p>Thread-safety: JMH benchmark state, one thread.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {
            "-Xms2g",
            "-Xmx2g",
            "-Dorg.slf4j.simpleLogger.log.org.apache.hadoop=warn",
            "-Dorg.slf4j.simpleLogger.log.org.apache.parquet=warn"
        })
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 3)
@State(Scope.Benchmark)
public class TypedOffloadBenchmark {
    static final String SCHEMA =
            "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"bench\",\"fields\":["
                    + "{\"name\":\"id\",\"type\":\"string\"},"
                    + "{\"name\":\"customer\",\"type\":\"string\"},"
                    + "{\"name\":\"amount\",\"type\":\"long\"},"
                    + "{\"name\":\"qty\",\"type\":\"int\"},"
                    + "{\"name\":\"currency\",\"type\":\"string\"},"
                    + "{\"name\":\"status\",\"type\":\"string\"},"
                    + "{\"name\":\"created\",\"type\":\"long\"},"
                    + "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"string\"}},"
                    + "{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null}]}";

    private static final ColdTierOptions OPTIONS = ColdTierOptions.defaults();
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final String SUBJECT = "bench-value";

    /** {@code untyped}, {@code typed} or {@code oneCopy}. */
    @Param({"untyped", "typed", "oneCopy"})
    public String mode;

    /** Segment size converted per operation. */
    @Param({"32"})
    public int segmentMiB;

    /**
     * Approximate size of a framed value: {@code 100} (short strings, a few tags, a note on one
     * record in four) or {@code 1024} (up to nine tags and a note of random words on every record,
     * so that most of the bytes are one string field).
     */
    @Param({"100", "1024"})
    public int valueBytes;

    private Path dir;
    private Path out;
    private Catalog catalog;
    private CatalogSchemaRegistry registry;
    private List<MemoryRecords> batches;
    private long segmentBytes;
    private long objectBytes;
    private long untypedObjectBytes;
    private TypedCounts counts = TypedCounts.NONE;
    private boolean measuring;
    private long measuredBytes;
    private long measuredCpuNanos;

    /** Bytes of segment converted (reported per second). */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Converted {
        public long segmentBytes;
    }

    @Setup(Level.Trial)
    public void createSegment() throws IOException {
        String base = System.getProperty("tierlog.bench.dir", System.getProperty("java.io.tmpdir"));
        dir = Files.createTempDirectory(Files.createDirectories(Path.of(base)), "typed-offload-");
        out = dir.resolve("object.parquet");
        catalog = Catalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"));
        registry = CatalogSchemaRegistry.open(catalog);
        int id =
                registry.register(SUBJECT, SchemaType.AVRO, SCHEMA, List.of(), false).schema().id();
        batches = avroSegment(id, (long) segmentMiB << 20, valueBytes);
        segmentBytes = batches.stream().mapToLong(MemoryRecords::sizeInBytes).sum();
        objectBytes = write(typedColumns()).sizeInBytes();
        untypedObjectBytes =
                mode.equals("untyped") ? objectBytes : write(TypedColumns.NONE).sizeInBytes();
    }

    @Setup(Level.Iteration)
    public void beginIteration(IterationParams params) {
        measuring = params.getType() == IterationType.MEASUREMENT;
    }

    @Benchmark
    public long offload(Converted converted) throws IOException {
        long cpu = THREADS.getCurrentThreadCpuTime();
        WrittenObject w = write(typedColumns());
        if (measuring) {
            measuredCpuNanos += THREADS.getCurrentThreadCpuTime() - cpu;
            measuredBytes += segmentBytes;
        }
        converted.segmentBytes += segmentBytes;
        return w.sizeInBytes();
    }

    private TypedColumns typedColumns() {
        if (mode.equals("untyped")) {
            return TypedColumns.NONE;
        }
        boolean oneCopy = mode.equals("oneCopy");
        ValueTyper values =
                RegistryValueTyper.forSubject(
                                registry, SUBJECT, RegistryValueTyper.VALUE_FIELD_ID_BASE, oneCopy)
                        .orElseThrow();
        return new TypedColumns(values, null, oneCopy);
    }

    private WrittenObject write(TypedColumns typed) throws IOException {
        try (ParquetLogWriter w = ParquetLogWriter.open(out, "bench", 0, OPTIONS, typed)) {
            for (MemoryRecords m : batches) {
                for (RecordBatch b : m.batches()) {
                    w.append(b);
                }
            }
            counts = w.typedCounts();
            return w.finish();
        }
    }

    @TearDown(Level.Trial)
    public void report() throws IOException {
        double mibPerCpuSecond =
                measuredCpuNanos == 0 ? 0 : (measuredBytes / 1048576.0) / (measuredCpuNanos / 1e9);
        System.out.printf(
                Locale.ROOT,
                "%n[typed-offload] mode=%s value=~%d B segment=%.1f MiB object=%.2f MiB"
                        + " object/segment=%.3f object/untyped=%.3f typed=%d storedOnce=%d"
                        + " failed=%s, measured %.1f segment MiB per CPU-second%n",
                mode,
                valueBytes,
                segmentBytes / 1048576.0,
                objectBytes / 1048576.0,
                (double) objectBytes / segmentBytes,
                (double) objectBytes / untypedObjectBytes,
                counts.valuesTyped(),
                counts.valuesRebuilt(),
                counts.valueFailures(),
                mibPerCpuSecond);
        registry.close();
        catalog.close();
        Files.deleteIfExists(out);
    }

    /**
     * Producer-sized batches of framed Avro orders totalling about {@code targetBytes}, values of
     * about {@code valueBytes} (see {@link #valueBytes}).
     */
    static List<MemoryRecords> avroSegment(int schemaId, long targetBytes, int valueBytes) {
        boolean large = valueBytes >= 512;
        Random rnd = new Random(42);
        org.apache.avro.Schema schema = new org.apache.avro.Schema.Parser().parse(SCHEMA);
        org.apache.avro.generic.GenericDatumWriter<org.apache.avro.generic.GenericRecord> writer =
                new org.apache.avro.generic.GenericDatumWriter<>(schema);
        String[] currencies = {"EUR", "USD", "GBP"};
        String[] statuses = {"created", "paid", "shipped", "delivered"};
        List<MemoryRecords> out = new ArrayList<>();
        long offset = 0;
        long ts = 1_764_000_000_000L;
        long total = 0;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        org.apache.avro.io.BinaryEncoder enc = null;
        int perBatch = Math.max(1, 16 * 1024 / (valueBytes + 20));
        String[] words = {"please", "deliver", "to", "the", "back", "door", "gift", "wrap", "call"};
        while (total < targetBytes) {
            ByteBuffer buf = ByteBuffer.allocate(perBatch * (valueBytes * 2 + 100) + 256);
            MemoryRecordsBuilder b =
                    MemoryRecords.builder(buf, Compression.NONE, TimestampType.CREATE_TIME, offset);
            for (int i = 0; i < perBatch; i++) {
                org.apache.avro.generic.GenericRecord r =
                        new org.apache.avro.generic.GenericData.Record(schema);
                r.put("id", "order-" + offset);
                r.put("customer", "customer-" + rnd.nextInt(10_000));
                r.put("amount", (long) rnd.nextInt(1_000_000));
                r.put("qty", 1 + rnd.nextInt(20));
                r.put("currency", currencies[rnd.nextInt(currencies.length)]);
                r.put("status", statuses[rnd.nextInt(statuses.length)]);
                r.put("created", ts);
                List<String> tags = new ArrayList<>();
                for (int t = rnd.nextInt(large ? 10 : 3); t > 0; t--) {
                    tags.add("tag" + rnd.nextInt(20));
                }
                r.put("tags", tags);
                if (large) {
                    StringBuilder note = new StringBuilder();
                    while (note.length() < valueBytes - 150) {
                        note.append(words[rnd.nextInt(words.length)]).append(' ');
                    }
                    r.put("note", note.toString());
                } else {
                    r.put("note", rnd.nextInt(4) == 0 ? "gift wrap please" : null);
                }
                bytes.reset();
                bytes.write(0);
                bytes.writeBytes(ByteBuffer.allocate(4).putInt(schemaId).array());
                enc = org.apache.avro.io.EncoderFactory.get().binaryEncoder(bytes, enc);
                try {
                    writer.write(r, enc);
                    enc.flush();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                b.appendWithOffset(
                        offset++,
                        ts += rnd.nextInt(3),
                        ("customer-" + rnd.nextInt(1000)).getBytes(),
                        bytes.toByteArray());
            }
            MemoryRecords m = b.build();
            total += m.sizeInBytes();
            out.add(m);
        }
        return out;
    }
}
