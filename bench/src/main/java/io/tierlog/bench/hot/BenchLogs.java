package io.tierlog.bench.hot;

import io.tierlog.common.Time;
import io.tierlog.hot.LogConfig;
import io.tierlog.hot.PartitionLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Shared set-up of the hot-tier benchmarks: fresh partition logs under {@code tierlog.bench.dir}
 * (default {@code target/jmh-data}, i.e. on the file system the benchmark's {@code dd} baseline
 * writes to) and producer-like record batches.
 *
 * <p>Thread-safety: stateless, thread-safe.
 */
final class BenchLogs {
    /** A producer's default {@code batch.size}: what one Produce request carries per partition. */
    static final int BATCH_BYTES = 16 * 1024;

    private BenchLogs() {}

    static Path baseDir() throws IOException {
        Path base = Path.of(System.getProperty("tierlog.bench.dir", "target/jmh-data"));
        Files.createDirectories(base);
        return base;
    }

    /** Opens an empty log in a new {@code <tmp>/bench-0} folder with the given settings. */
    static PartitionLog openFresh(String prefix, Map<String, String> settings) throws IOException {
        Path parent = Files.createTempDirectory(baseDir(), prefix);
        return PartitionLog.open(parent.resolve("bench-0"), LogConfig.from(settings), Time.SYSTEM);
    }

    /** Closes the log and deletes its folder (and the temp parent created by openFresh). */
    static void closeAndDelete(PartitionLog log) throws IOException {
        if (log == null) {
            return;
        }
        Path parent = log.dir().getParent();
        log.close();
        deleteTree(parent);
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /**
     * An uncompressed CreateTime batch of about {@link #BATCH_BYTES} of {@code recordSize}-byte
     * random values without keys, all timestamped {@code timestamp}.
     */
    static ByteBuffer batch(int recordSize, long seed, long timestamp) {
        Random random = new Random(seed);
        int count = Math.max(1, BATCH_BYTES / (recordSize + 8));
        List<SimpleRecord> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            byte[] value = new byte[recordSize];
            random.nextBytes(value);
            records.add(new SimpleRecord(timestamp, null, value));
        }
        ByteBuffer buf = ByteBuffer.allocate(BATCH_BYTES + 1024 + count * 16);
        MemoryRecordsBuilder b =
                MemoryRecords.builder(
                        buf,
                        RecordBatch.MAGIC_VALUE_V2,
                        Compression.NONE,
                        TimestampType.CREATE_TIME,
                        0L);
        for (SimpleRecord r : records) {
            b.append(r);
        }
        MemoryRecords built = b.build();
        ByteBuffer out = ByteBuffer.allocate(built.sizeInBytes());
        out.put(built.buffer().duplicate());
        out.flip();
        return out;
    }
}
