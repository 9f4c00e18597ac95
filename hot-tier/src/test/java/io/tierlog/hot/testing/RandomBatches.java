package io.tierlog.hot.testing;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Reusable generator of valid Kafka v2 record batches for tests of every module: random codecs
 * (none, gzip, snappy, lz4, zstd), null keys and values, headers, optional idempotent producer
 * fields. Deterministic for a given seed.
 *
 * <p>Not thread-safe (one instance per test thread).
 */
public final class RandomBatches {
    /** Every codec Kafka supports. */
    public static final List<CompressionType> CODECS =
            List.of(
                    CompressionType.NONE,
                    CompressionType.GZIP,
                    CompressionType.SNAPPY,
                    CompressionType.LZ4,
                    CompressionType.ZSTD);

    private final Random random;
    private long timestamp;

    public RandomBatches(long seed) {
        this(seed, 1_700_000_000_000L);
    }

    /**
     * @param seed random seed
     * @param startTimestamp timestamp of the first record; later records move forward by 0-5 ms
     *     (and sometimes jump backwards a little, as real producers' clocks do)
     */
    public RandomBatches(long seed, long startTimestamp) {
        this.random = new Random(seed);
        this.timestamp = startTimestamp;
    }

    public Random random() {
        return random;
    }

    /** A random codec. */
    public CompressionType codec() {
        return CODECS.get(random.nextInt(CODECS.size()));
    }

    /** Random records: 1..maxRecords, keys/values null 10% of the time, 0-2 headers. */
    public List<SimpleRecord> records(int maxRecords, int maxValueBytes) {
        int n = 1 + random.nextInt(maxRecords);
        List<SimpleRecord> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            timestamp += random.nextInt(10) == 0 ? -random.nextInt(3) : random.nextInt(6);
            byte[] key = random.nextInt(10) == 0 ? null : bytes(random.nextInt(16));
            byte[] value =
                    random.nextInt(10) == 0 ? null : bytes(random.nextInt(maxValueBytes + 1));
            int nh = random.nextInt(3);
            Header[] headers = new Header[nh];
            for (int h = 0; h < nh; h++) {
                headers[h] =
                        new RecordHeader(
                                "h" + random.nextInt(100),
                                random.nextBoolean() ? null : bytes(random.nextInt(8)));
            }
            out.add(new SimpleRecord(timestamp, key, value, headers));
        }
        return out;
    }

    /** A random plain (non-idempotent) batch with a random codec, as a producer would send it. */
    public ByteBuffer batch() {
        return batch(codec(), records(20, 200));
    }

    /** A plain CreateTime batch at base offset 0 of the given records. */
    public static ByteBuffer batch(CompressionType codec, List<SimpleRecord> records) {
        return build(codec, records, RecordBatch.NO_PRODUCER_ID, (short) -1, -1);
    }

    /** An idempotent batch: producer id, epoch and base sequence set. */
    public static ByteBuffer idempotentBatch(
            CompressionType codec,
            List<SimpleRecord> records,
            long producerId,
            short epoch,
            int baseSequence) {
        return build(codec, records, producerId, epoch, baseSequence);
    }

    /** A batch of {@code count} records with {@code valueBytes}-byte random values, no keys. */
    public ByteBuffer fixedSizeBatch(CompressionType codec, int count, int valueBytes) {
        List<SimpleRecord> recs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            recs.add(new SimpleRecord(timestamp, null, bytes(valueBytes)));
        }
        return batch(codec, recs);
    }

    /** Concatenates batches into one buffer, as they arrive in a Produce request. */
    public static ByteBuffer concat(List<ByteBuffer> batches) {
        int size = 0;
        for (ByteBuffer b : batches) {
            size += b.remaining();
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        for (ByteBuffer b : batches) {
            out.put(b.duplicate());
        }
        out.flip();
        return out;
    }

    private static ByteBuffer build(
            CompressionType codec,
            List<SimpleRecord> records,
            long producerId,
            short epoch,
            int baseSequence) {
        ByteBuffer buf = ByteBuffer.allocate(1024 + estimate(records));
        MemoryRecordsBuilder b =
                MemoryRecords.builder(
                        buf,
                        RecordBatch.MAGIC_VALUE_V2,
                        Compression.of(codec).build(),
                        TimestampType.CREATE_TIME,
                        0L,
                        RecordBatch.NO_TIMESTAMP,
                        producerId,
                        epoch,
                        baseSequence,
                        false,
                        RecordBatch.NO_PARTITION_LEADER_EPOCH);
        for (SimpleRecord r : records) {
            b.append(r);
        }
        MemoryRecords built = b.build();
        ByteBuffer out = ByteBuffer.allocate(built.sizeInBytes());
        out.put(built.buffer().duplicate());
        out.flip();
        return out;
    }

    private static int estimate(List<SimpleRecord> records) {
        int n = 0;
        for (SimpleRecord r : records) {
            n += 32 + (r.key() == null ? 0 : r.key().remaining());
            n += r.value() == null ? 0 : r.value().remaining();
            for (Header h : r.headers()) {
                n += 16 + h.key().length() + (h.value() == null ? 0 : h.value().length);
            }
        }
        return n;
    }

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }
}
