package io.tierlog.cold.testing;

import io.tierlog.cold.ColdTierOptions;
import io.tierlog.cold.ParquetLogWriter;
import io.tierlog.cold.WrittenObject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Random Kafka record batches (magic v2) for cold-tier tests: every codec, both timestamp types,
 * null keys and values, headers with null values, idempotent and transactional producer fields,
 * transaction markers and offset gaps inside batches (as log compaction leaves them). Stateless;
 * deterministic for a given {@link Random}.
 */
public final class TestBatches {
    private TestBatches() {}

    public static final List<CompressionType> CODECS =
            List.of(
                    CompressionType.NONE,
                    CompressionType.GZIP,
                    CompressionType.SNAPPY,
                    CompressionType.LZ4,
                    CompressionType.ZSTD);

    /**
     * {@code count} consecutive batches starting at {@code baseOffset}; each batch picks its codec
     * from {@code codecs}.
     */
    public static List<MemoryRecords> randomBatches(
            Random rnd, long baseOffset, int count, List<CompressionType> codecs) {
        List<MemoryRecords> out = new ArrayList<>();
        long next = baseOffset;
        long clock = 1_700_000_000_000L + rnd.nextInt(1_000_000);
        for (int i = 0; i < count; i++) {
            CompressionType codec = codecs.get(rnd.nextInt(codecs.size()));
            MemoryRecords batch;
            if (rnd.nextInt(12) == 0) {
                batch =
                        MemoryRecords.withEndTransactionMarker(
                                next,
                                clock,
                                rnd.nextInt(5),
                                1000 + rnd.nextInt(5),
                                (short) rnd.nextInt(3),
                                new EndTransactionMarker(
                                        rnd.nextBoolean()
                                                ? ControlRecordType.COMMIT
                                                : ControlRecordType.ABORT,
                                        rnd.nextInt(10)));
            } else {
                batch = randomBatch(rnd, next, clock, codec);
            }
            RecordBatch b = batch.firstBatch();
            next = b.lastOffset() + 1 + (rnd.nextInt(5) == 0 ? rnd.nextInt(3) : 0);
            clock += rnd.nextInt(10_000);
            out.add(batch);
        }
        return out;
    }

    /** One random data batch at {@code baseOffset}. */
    public static MemoryRecords randomBatch(
            Random rnd, long baseOffset, long clock, CompressionType codec) {
        boolean logAppendTime = rnd.nextInt(4) == 0;
        int producerKind = rnd.nextInt(3); // 0 none, 1 idempotent, 2 transactional
        long producerId = producerKind == 0 ? RecordBatch.NO_PRODUCER_ID : 1000 + rnd.nextInt(5);
        short epoch = producerKind == 0 ? RecordBatch.NO_PRODUCER_EPOCH : (short) rnd.nextInt(3);
        int baseSequence = producerKind == 0 ? RecordBatch.NO_SEQUENCE : rnd.nextInt(100_000);
        int records = 1 + rnd.nextInt(rnd.nextBoolean() ? 5 : 60);
        ByteBuffer buf = ByteBuffer.allocate(1024 + records * 2_400);
        MemoryRecordsBuilder b =
                new MemoryRecordsBuilder(
                        buf,
                        RecordBatch.MAGIC_VALUE_V2,
                        Compression.of(codec).build(),
                        logAppendTime ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME,
                        baseOffset,
                        logAppendTime ? clock + 5_000 : RecordBatch.NO_TIMESTAMP,
                        producerId,
                        epoch,
                        baseSequence,
                        producerKind == 2,
                        false,
                        rnd.nextInt(20),
                        buf.capacity());
        long offset = baseOffset;
        for (int i = 0; i < records; i++) {
            long ts = clock + rnd.nextInt(2_000) - 500;
            b.appendWithOffset(offset, ts, bytes(rnd, 30), bytes(rnd, 2_000), headers(rnd));
            // compaction leaves gaps; sequences must stay consecutive for producer batches
            offset += producerKind == 0 && rnd.nextInt(6) == 0 ? 2 + rnd.nextInt(3) : 1;
        }
        return b.build();
    }

    private static byte[] bytes(Random rnd, int max) {
        int kind = rnd.nextInt(8);
        if (kind == 0) {
            return null;
        }
        if (kind == 1) {
            return new byte[0];
        }
        byte[] b = new byte[rnd.nextInt(max)];
        if (rnd.nextBoolean()) {
            rnd.nextBytes(b); // incompressible
        } else {
            for (int i = 0; i < b.length; i++) {
                b[i] = (byte) ('a' + rnd.nextInt(4)); // compressible
            }
        }
        return b;
    }

    private static Header[] headers(Random rnd) {
        int n = rnd.nextInt(3) == 0 ? rnd.nextInt(4) : 0;
        Header[] h = new Header[n];
        for (int i = 0; i < n; i++) {
            String key = rnd.nextBoolean() ? "h" + rnd.nextInt(3) : "ключ-" + i;
            byte[] value =
                    rnd.nextInt(4) == 0
                            ? null
                            : ("v" + rnd.nextInt(1000)).getBytes(StandardCharsets.UTF_8);
            h[i] = new RecordHeader(key, value);
        }
        return h;
    }

    /** {@code n} uncompressed batches of {@code perBatch} records of {@code valueSize} bytes. */
    /**
     * Writes the first batch of each of {@code input}, in order, into a new Parquet object at
     * {@code file} for partition {@code partition} of {@code topic}; returns what was written.
     */
    public static WrittenObject writeObject(
            Path file,
            String topic,
            int partition,
            ColdTierOptions options,
            List<MemoryRecords> input)
            throws IOException {
        try (ParquetLogWriter w = ParquetLogWriter.open(file, topic, partition, options)) {
            for (MemoryRecords m : input) {
                w.append(m.firstBatch());
            }
            return w.finish();
        }
    }

    public static List<MemoryRecords> uniformBatches(
            long baseOffset, int n, int perBatch, int valueSize, CompressionType codec, long seed) {
        Random rnd = new Random(seed);
        List<MemoryRecords> out = new ArrayList<>(n);
        long offset = baseOffset;
        long ts = 1_700_000_000_000L;
        for (int i = 0; i < n; i++) {
            MemoryRecordsBuilder b =
                    MemoryRecords.builder(
                            ByteBuffer.allocate(perBatch * (valueSize + 64) + 128),
                            Compression.of(codec).build(),
                            TimestampType.CREATE_TIME,
                            offset);
            for (int j = 0; j < perBatch; j++) {
                byte[] v = new byte[valueSize];
                for (int k = 0; k < v.length; k++) {
                    v[k] = (byte) ('a' + rnd.nextInt(26));
                }
                b.appendWithOffset(offset++, ts++, ("key-" + (j % 100)).getBytes(), v);
            }
            out.add(b.build());
        }
        return out;
    }
}
