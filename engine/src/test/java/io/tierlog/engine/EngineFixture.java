package io.tierlog.engine;

import io.tierlog.common.Config;
import io.tierlog.compactor.testing.ColdTierFixture;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * A real two-tier setup for engine tests: the shared {@link ColdTierFixture} (s3proxy that a test
 * can stop and restart on the same port and directory to simulate an outage, a SQLite catalog in
 * the data dir), small segments, and no background threads (tests drive {@link
 * TieredLog#maintain()}). Not thread-safe.
 */
final class EngineFixture implements AutoCloseable {
    static final TopicPartition TP = new TopicPartition("events", 0);

    final Path dir;
    final ColdTierFixture cold;

    EngineFixture(Path dir) throws IOException {
        this.dir = dir;
        this.cold = ColdTierFixture.start(dir);
    }

    /** Engine settings: small segments, fast-failing S3 retries, manual maintenance. */
    Config config(Map<String, String> extra) {
        Map<String, String> m = new HashMap<>();
        m.put("engine.background.enabled", "false");
        m.put("segment.bytes", "16384");
        m.put("retention.ms", "-1");
        m.put("cold.read.chunk.bytes", "4096");
        m.put("s3.retry.max.attempts", "2");
        m.put("s3.retry.backoff.ms", "10");
        m.put("s3.retry.backoff.max.ms", "50");
        m.put("s3.request.timeout.ms", "5000");
        m.put("offload.retry.backoff.ms", "10");
        m.put("offload.retry.backoff.max.ms", "50");
        m.put("offload.retry.timeout.ms", "300");
        m.put("file.delete.delay.ms", "0");
        m.putAll(extra);
        return cold.engineConfig(m);
    }

    TieredLog open(Map<String, String> extra) throws IOException {
        return TieredLog.open(config(extra));
    }

    /** Stops the S3 server (objects stay on disk). */
    void stopS3() throws IOException {
        cold.stopS3();
    }

    /** Starts it again on the same port over the same directory. */
    void startS3() throws IOException {
        cold.startS3();
    }

    /**
     * Appends {@code batches} batches of {@code perBatch} records; record i of the log has
     * timestamp {@code baseTs + i}, key "k{i}", value "value-{i}-" padded, one header.
     */
    static void appendRecords(
            TieredLog log, TopicPartition tp, int batches, int perBatch, long baseTs)
            throws IOException {
        long next = log.latestOffset(tp);
        for (int b = 0; b < batches; b++) {
            SimpleRecord[] recs = new SimpleRecord[perBatch];
            for (int i = 0; i < perBatch; i++) {
                long o = next + i;
                recs[i] =
                        new SimpleRecord(
                                baseTs + o,
                                ("k" + o).getBytes(StandardCharsets.UTF_8),
                                ("value-" + o + "-" + "x".repeat(40))
                                        .getBytes(StandardCharsets.UTF_8),
                                new RecordHeader[] {
                                    new RecordHeader(
                                            "h", Long.toString(o).getBytes(StandardCharsets.UTF_8))
                                });
            }
            Compression c = b % 3 == 0 ? Compression.zstd().build() : Compression.NONE;
            MemoryRecords mr = MemoryRecords.withRecords(c, recs);
            log.append(tp, mr.buffer().duplicate());
            next += perBatch;
        }
    }

    /** Checks that a record is the one {@link #appendRecords} wrote at its offset. */
    static boolean isExpected(Record r, long baseTs) {
        long o = r.offset();
        return r.timestamp() == baseTs + o
                && StandardCharsets.UTF_8.decode(r.key()).toString().equals("k" + o)
                && StandardCharsets.UTF_8
                        .decode(r.value())
                        .toString()
                        .equals("value-" + o + "-" + "x".repeat(40))
                && r.headers().length == 1
                && new String(r.headers()[0].value(), StandardCharsets.UTF_8)
                        .equals(Long.toString(o));
    }

    /** Every batch of one read, with its offsets. */
    static List<RecordBatch> batches(TierRead r) {
        List<RecordBatch> out = new ArrayList<>();
        for (RecordBatch b : r.toMemoryRecordsUnchecked().batches()) {
            out.add(b);
        }
        return out;
    }

    static TierRead get(java.util.concurrent.CompletableFuture<TierRead> f) throws Exception {
        return f.get(60, TimeUnit.SECONDS);
    }

    static ByteBuffer copy(ByteBuffer b) {
        ByteBuffer c = ByteBuffer.allocate(b.remaining());
        c.put(b.duplicate()).flip();
        return c;
    }

    @Override
    public void close() throws IOException {
        cold.close();
    }
}
