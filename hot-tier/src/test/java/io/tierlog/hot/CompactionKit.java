package io.tierlog.hot;

import io.tierlog.common.Config;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Keyed batches, compacted-topic configs and a consumer's view for the cleaner tests. Stateless.
 */
final class CompactionKit {
    private CompactionKit() {}

    /** A compacted topic's config: small segments, every dirty byte cleanable, no lags. */
    static LogConfig compactConfig(Map<String, String> more) {
        Map<String, String> m = new HashMap<>();
        m.put("cleanup.policy", "compact");
        m.put("segment.bytes", "2048");
        m.put("min.cleanable.dirty.ratio", "0.01");
        m.put("delete.retention.ms", "1000");
        m.put("file.delete.delay.ms", "0");
        m.put("index.interval.bytes", "256");
        m.putAll(more);
        return LogConfig.from(m);
    }

    static CleanerConfig cleanerConfig(long dedupeBytes) {
        return CleanerConfig.from(
                Config.of(
                        Map.of(
                                "log.cleaner.threads", "0",
                                "log.cleaner.dedupe.buffer.size", Long.toString(dedupeBytes),
                                "log.cleaner.backoff.ms", "10")));
    }

    /** One record: key (null for none), value (null for a tombstone). */
    record Rec(String key, String value, long timestamp) {}

    static ByteBuffer batch(Compression codec, List<Rec> recs) {
        return batch(codec, recs, RecordBatch.NO_PRODUCER_ID, (short) -1, -1);
    }

    static ByteBuffer batch(
            Compression codec, List<Rec> recs, long pid, short epoch, int baseSequence) {
        ByteBuffer buf = ByteBuffer.allocate(1024 + recs.size() * 128);
        MemoryRecordsBuilder b =
                MemoryRecords.builder(
                        buf,
                        RecordBatch.CURRENT_MAGIC_VALUE,
                        codec,
                        TimestampType.CREATE_TIME,
                        0L,
                        RecordBatch.NO_TIMESTAMP,
                        pid,
                        epoch,
                        baseSequence,
                        false,
                        RecordBatch.NO_PARTITION_LEADER_EPOCH);
        for (Rec r : recs) {
            Header[] headers = {new RecordHeader("h", bytes("hdr-" + r.value()))};
            b.append(r.timestamp(), bytes(r.key()), bytes(r.value()), headers);
        }
        return b.build().buffer();
    }

    static byte[] bytes(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    static String string(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return new String(a, StandardCharsets.UTF_8);
    }

    /** A record as a consumer reads it. */
    record Read(long offset, String key, String value, long timestamp, String header) {}

    /** Every record from the log start, in offset order (checked ascending). */
    static List<Read> readAll(PartitionLog log) throws IOException {
        List<Read> out = new java.util.ArrayList<>();
        long last = -1;
        for (RecordBatch b : LogTestSupport.readAll(log, 1 << 20)) {
            for (Record r : b) {
                if (r.offset() <= last) {
                    throw new AssertionError("offset " + r.offset() + " after " + last);
                }
                last = r.offset();
                Header[] h = r.headers();
                out.add(
                        new Read(
                                r.offset(),
                                string(r.key()),
                                string(r.value()),
                                r.timestamp(),
                                h.length == 0 ? null : new String(h[0].value())));
            }
        }
        return out;
    }

    /** The latest record of each key a consumer reading from the start sees. */
    static Map<String, Read> latest(List<Read> reads) {
        Map<String, Read> out = new LinkedHashMap<>();
        for (Read r : reads) {
            out.put(r.key(), r);
        }
        return out;
    }
}
