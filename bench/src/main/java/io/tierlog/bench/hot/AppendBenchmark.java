package io.tierlog.bench.hot;

import io.tierlog.hot.AppendResult;
import io.tierlog.hot.PartitionLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
 * Append throughput of {@link PartitionLog#append} with producer-sized (16 KiB) uncompressed
 * batches of 100 B or 1 KiB records: page-cache mode with one appender, and fsync-before-ack mode
 * with 1 and 8 concurrent appenders (group commit). Every iteration starts from an empty log in a
 * new folder, so appends go to new pages of new files, like {@code dd bs=1M} into a new file.
 *
 * <p>Besides ops/s (batches/s), each benchmark reports the secondary result {@code bytes}: batch
 * bytes appended per second (the figure compared with {@code dd} by {@code hot-tier-bench.sh}).
 *
 * <p>Thread-safety: JMH states as declared (the log is shared, batches are per thread).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class AppendBenchmark {

    /** The log under test; recreated empty for every iteration. */
    @State(Scope.Benchmark)
    public abstract static class LogState {
        PartitionLog log;

        abstract String durability();

        @Setup(Level.Iteration)
        public void open() throws IOException {
            log =
                    BenchLogs.openFresh(
                            "append-",
                            Map.of(
                                    "log.durability", durability(),
                                    "segment.bytes", Integer.toString(512 * 1024 * 1024)));
        }

        @TearDown(Level.Iteration)
        public void close() throws IOException {
            BenchLogs.closeAndDelete(log);
            log = null;
        }
    }

    /** Kafka's default: acknowledge once the batch is in the page cache. */
    public static class PageCacheLog extends LogState {
        @Override
        String durability() {
            return "page_cache";
        }
    }

    /** Acknowledge after an fsync (shared by concurrent appenders). */
    public static class FsyncLog extends LogState {
        @Override
        String durability() {
            return "fsync";
        }
    }

    /** The record size under test. */
    @State(Scope.Benchmark)
    public static class Shape {
        @Param({"100", "1024"})
        public int recordSize;
    }

    /** One appender thread's batch, built once (offsets are rewritten by every append). */
    @State(Scope.Thread)
    public static class Batch {
        ByteBuffer bytes;

        @Setup(Level.Trial)
        public void build(Shape shape) {
            bytes =
                    BenchLogs.batch(
                            shape.recordSize,
                            Thread.currentThread().getId(),
                            System.currentTimeMillis());
        }
    }

    /** Secondary result: appended bytes per second. */
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
    public AppendResult pageCache1(PageCacheLog state, Batch batch, Bytes counter)
            throws IOException {
        return append(state.log, batch, counter);
    }

    @Benchmark
    @Threads(1)
    public AppendResult fsync1(FsyncLog state, Batch batch, Bytes counter) throws IOException {
        return append(state.log, batch, counter);
    }

    @Benchmark
    @Threads(8)
    public AppendResult fsync8(FsyncLog state, Batch batch, Bytes counter) throws IOException {
        return append(state.log, batch, counter);
    }

    private static AppendResult append(PartitionLog log, Batch batch, Bytes counter)
            throws IOException {
        ByteBuffer b = batch.bytes.duplicate();
        counter.bytes += b.remaining();
        return log.append(b);
    }
}
