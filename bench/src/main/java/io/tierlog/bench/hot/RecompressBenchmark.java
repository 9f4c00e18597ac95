package io.tierlog.bench.hot;

import io.tierlog.hot.AppendResult;
import io.tierlog.hot.PartitionLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.SimpleRecord;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of {@code compression.type} recompression on append: one appender, page-cache mode,
 * batches of about 16 KiB of 1 KiB text-like records (words drawn from a small vocabulary, so the
 * codecs have something to do) sent in the {@code source} codec to a log whose topic asks for
 * {@code target}. {@code zstd>zstd} is the no-conversion baseline of a compressed batch (validated
 * and stored as is); {@code none>producer} the baseline of the zero-copy path.
 *
 * <p>Secondary result {@code bytes}: uncompressed record bytes appended per second (the same
 * payload for every case, so the figures compare directly).
 *
 * <p>Thread-safety: JMH states as declared.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
public class RecompressBenchmark {
    private static final int RECORD_BYTES = 1024;
    private static final int RECORDS = 16;

    /** The conversion under test, as {@code source>target}; a fresh log per iteration. */
    @State(Scope.Benchmark)
    public static class Conversion {
        @Param({
            "none>producer",
            "zstd>zstd",
            "none>gzip",
            "none>snappy",
            "none>lz4",
            "none>zstd",
            "lz4>zstd",
            "zstd>uncompressed"
        })
        public String conversion;

        PartitionLog log;
        ByteBuffer batch;

        @Setup(Level.Trial)
        public void build() {
            String source = conversion.substring(0, conversion.indexOf('>'));
            batch = textBatch(CompressionType.forName(source), 42);
        }

        @Setup(Level.Iteration)
        public void open() throws IOException {
            String target = conversion.substring(conversion.indexOf('>') + 1);
            log =
                    BenchLogs.openFresh(
                            "recompress-",
                            Map.of(
                                    "compression.type",
                                    target,
                                    "segment.bytes",
                                    Integer.toString(512 * 1024 * 1024)));
        }

        @TearDown(Level.Iteration)
        public void close() throws IOException {
            BenchLogs.closeAndDelete(log);
            log = null;
        }
    }

    /** Secondary result: uncompressed record bytes appended per second. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Bytes {
        public long bytes;

        @Setup(Level.Iteration)
        public void reset() {
            bytes = 0;
        }
    }

    @Benchmark
    @Threads(1)
    public AppendResult append(Conversion c, Bytes counter) throws IOException {
        counter.bytes += (long) RECORD_BYTES * RECORDS;
        return c.log.append(c.batch.duplicate()); // offsets are rewritten in place, harmlessly
    }

    static ByteBuffer textBatch(CompressionType codec, long seed) {
        String[] words = {
            "order", "customer", "amount", "currency", "EUR", "USD", "status", "shipped",
            "pending", "id", "timestamp", "region", "eu-west", "us-east", "sku", "quantity"
        };
        Random random = new Random(seed);
        MemoryRecordsBuilder b =
                MemoryRecords.builder(
                        ByteBuffer.allocate(RECORDS * RECORD_BYTES * 2),
                        Compression.of(codec).build(),
                        TimestampType.CREATE_TIME,
                        0L);
        long now = System.currentTimeMillis();
        for (int i = 0; i < RECORDS; i++) {
            StringBuilder sb = new StringBuilder(RECORD_BYTES);
            while (sb.length() < RECORD_BYTES) {
                sb.append(words[random.nextInt(words.length)])
                        .append(random.nextBoolean() ? '=' : ' ')
                        .append(random.nextInt(100000))
                        .append(',');
            }
            sb.setLength(RECORD_BYTES);
            b.append(new SimpleRecord(now, null, sb.toString().getBytes()));
        }
        ByteBuffer built = b.build().buffer();
        ByteBuffer out = ByteBuffer.allocate(built.remaining());
        out.put(built).flip();
        return out;
    }
}
