package io.tierlog.bench.hot;

import io.tierlog.hot.FileSlice;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.TimestampOffset;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
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
 * Lookups on a filled log (about 128 MiB of 16 KiB batches of 1 KiB records in 16 MiB segments,
 * index entry every 4 KiB): {@code readSlice} = {@link PartitionLog#read} of a random offset
 * (segment lookup, offset-index binary search, scan to the batch holding the offset, slice bounded
 * by 1 MiB on a batch boundary; no record bytes are copied), {@code timestampLookup} = {@link
 * PartitionLog#offsetForTimestamp} of a random timestamp (time index, then offset index).
 *
 * <p>Thread-safety: JMH states as declared.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@State(Scope.Benchmark)
public class ReadBenchmark {
    @Param({"134217728"})
    public long logBytes;

    PartitionLog log;
    long firstTimestamp;
    long lastTimestamp;

    /** Per-thread random source. */
    @State(Scope.Thread)
    public static class Rnd {
        final SplittableRandom random = new SplittableRandom(42);
    }

    @Setup(Level.Trial)
    public void fill() throws IOException {
        log =
                BenchLogs.openFresh(
                        "read-",
                        Map.of(
                                "segment.bytes",
                                Integer.toString(16 * 1024 * 1024),
                                "index.interval.bytes",
                                "4096"));
        // one millisecond per batch, so timestamp lookups have something to search
        firstTimestamp = System.currentTimeMillis() - logBytes / BenchLogs.BATCH_BYTES;
        long written = 0;
        for (long ts = firstTimestamp; written < logBytes; ts++) {
            ByteBuffer b = BenchLogs.batch(1024, ts, ts);
            written += b.remaining();
            log.append(b);
        }
        log.flush();
        lastTimestamp = log.maxTimestamp().map(TimestampOffset::timestamp).orElse(firstTimestamp);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        BenchLogs.closeAndDelete(log);
    }

    @Benchmark
    public FileSlice readSlice(Rnd rnd) throws IOException {
        long offset = rnd.random.nextLong(log.logStartOffset(), log.highWatermark());
        return log.read(offset, 1024 * 1024);
    }

    @Benchmark
    public Optional<TimestampOffset> timestampLookup(Rnd rnd) {
        long ts =
                firstTimestamp
                        + rnd.random.nextLong(Math.max(1, lastTimestamp - firstTimestamp + 1));
        return log.offsetForTimestamp(ts);
    }
}
