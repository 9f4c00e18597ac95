package io.tierlog.bench.cold;

import io.tierlog.cold.BareRowWriter;
import io.tierlog.cold.ColdTierOptions;
import io.tierlog.cold.ParquetLogWriter;
import io.tierlog.cold.WrittenObject;
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
import org.apache.kafka.common.record.internal.CompressionType;
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
 * Compaction throughput: segment bytes (Kafka record batches, as they sit in a {@code .log} file)
 * converted to a Parquet object per second, by tierlog's {@link ParquetLogWriter} and, in the same
 * run, by a bare parquet-java writer fed the same rows already decoded ({@link BareRowWriter}: the
 * limit for our stack). Producer-sized (16 KiB) batches of 100 B or 1 KiB text-like records (words
 * from a small vocabulary, so they compress like logs or JSON), ZSTD pages.
 *
 * <p>Results: {@code segmentBytes} (secondary, bytes/s) for both writers; at the end of each trial
 * the benchmark prints segment MiB per CPU-second of the benchmark thread (measured iterations
 * only) and object size / segment size. Run briefly on a shared machine:
 *
 * <pre>
 * mvn -q -B -DskipTests -Dspotless.check.skip=true -pl bench -am package
 * java -cp "bench/target/classes:$(cat bench/target/bench.classpath)" org.openjdk.jmh.Main \
 *     'io.tierlog.bench.cold.CompactionBenchmark' -f 1 -wi 2 -i 3 -w 3s -r 3s
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
public class CompactionBenchmark {
    private static final ColdTierOptions OPTIONS = ColdTierOptions.defaults();
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final String[] WORDS = {
        "order",
        "id",
        "user",
        "amount",
        "currency",
        "EUR",
        "USD",
        "status",
        "shipped",
        "pending",
        "created",
        "updated",
        "item",
        "sku",
        "quantity",
        "price",
        "warehouse",
        "berlin",
        "paris",
        "true",
        "false",
        "null",
        "{",
        "}",
        ":",
        ",",
        "\"",
        "2026-11-29T19:",
        "ok",
        "retry"
    };

    @Param({"100", "1024"})
    public int recordBytes;

    /** Codec of the source batches (producers default to none). */
    @Param({"none"})
    public String sourceCodec;

    /** Segment size converted per operation. */
    @Param({"32"})
    public int segmentMiB;

    private List<MemoryRecords> batches;
    private long segmentBytes;
    private BareRowWriter.Rows rows;
    private Path dir;
    private Path out;
    private long objectBytes;

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
        dir = Files.createTempDirectory(Files.createDirectories(Path.of(base)), "compaction-");
        out = dir.resolve("object.parquet");
        batches = segment(recordBytes, CompressionType.forName(sourceCodec), segmentMiB << 20);
        segmentBytes = batches.stream().mapToLong(MemoryRecords::sizeInBytes).sum();
        List<RecordBatch> all = new ArrayList<>();
        for (MemoryRecords m : batches) {
            m.batches().forEach(all::add);
        }
        rows = BareRowWriter.decode(all, OPTIONS);
        objectBytes = writeTierlog().sizeInBytes();
    }

    @Setup(Level.Iteration)
    public void beginIteration(IterationParams params) {
        measuring = params.getType() == IterationType.MEASUREMENT;
    }

    @Benchmark
    public long tierlogWriter(Converted converted) throws IOException {
        long cpu = THREADS.getCurrentThreadCpuTime();
        WrittenObject w = writeTierlog();
        account(cpu);
        converted.segmentBytes += segmentBytes;
        return w.sizeInBytes();
    }

    @Benchmark
    public long bareParquetWriter(Converted converted) throws IOException {
        long cpu = THREADS.getCurrentThreadCpuTime();
        BareRowWriter.write(out, rows, OPTIONS);
        account(cpu);
        converted.segmentBytes += segmentBytes;
        return Files.size(out);
    }

    private WrittenObject writeTierlog() throws IOException {
        try (ParquetLogWriter w = ParquetLogWriter.open(out, "bench", 0, OPTIONS)) {
            for (MemoryRecords m : batches) {
                for (RecordBatch b : m.batches()) {
                    w.append(b);
                }
            }
            return w.finish();
        }
    }

    private void account(long cpuBefore) {
        if (measuring) {
            measuredCpuNanos += THREADS.getCurrentThreadCpuTime() - cpuBefore;
            measuredBytes += segmentBytes;
        }
    }

    @TearDown(Level.Trial)
    public void report() throws IOException {
        double mibPerCpuSecond =
                measuredCpuNanos == 0 ? 0 : (measuredBytes / 1048576.0) / (measuredCpuNanos / 1e9);
        System.out.printf(
                Locale.ROOT,
                "%n[compaction] recordBytes=%d segment=%.1f MiB (%d records) tierlog object=%.2f"
                        + " MiB, object/segment=%.3f, measured %.1f segment MiB per CPU-second%n",
                recordBytes,
                segmentBytes / 1048576.0,
                rows.rows().length,
                objectBytes / 1048576.0,
                (double) objectBytes / segmentBytes,
                mibPerCpuSecond);
        Files.deleteIfExists(out);
        Files.deleteIfExists(dir);
    }

    /** Producer-sized batches totalling about {@code targetBytes}. */
    public static List<MemoryRecords> segment(
            int recordBytes, CompressionType codec, long targetBytes) {
        Random rnd = new Random(42);
        List<MemoryRecords> out = new ArrayList<>();
        long offset = 0;
        long ts = 1_764_000_000_000L;
        long total = 0;
        int perBatch = Math.max(1, 16 * 1024 / (recordBytes + 20));
        while (total < targetBytes) {
            ByteBuffer buf = ByteBuffer.allocate(perBatch * (recordBytes + 64) + 256);
            MemoryRecordsBuilder b =
                    MemoryRecords.builder(
                            buf, Compression.of(codec).build(), TimestampType.CREATE_TIME, offset);
            for (int i = 0; i < perBatch; i++) {
                b.appendWithOffset(
                        offset++,
                        ts += rnd.nextInt(3),
                        ("user-" + rnd.nextInt(1000)).getBytes(),
                        text(rnd, recordBytes));
            }
            MemoryRecords m = b.build();
            total += m.sizeInBytes();
            out.add(m);
        }
        return out;
    }

    private static byte[] text(Random rnd, int n) {
        StringBuilder sb = new StringBuilder(n + 16);
        while (sb.length() < n) {
            sb.append(WORDS[rnd.nextInt(WORDS.length)]);
            if (rnd.nextInt(4) == 0) {
                sb.append(rnd.nextInt(100_000));
            }
            sb.append(' ');
        }
        sb.setLength(n);
        return sb.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
