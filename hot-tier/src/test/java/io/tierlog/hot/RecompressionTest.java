package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.MockTime;
import io.tierlog.common.testing.Property;
import io.tierlog.hot.InvalidBatchException.Kind;
import io.tierlog.hot.testing.RandomBatches;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code compression.type} on append, as Kafka's LogValidator: {@code producer} stores the
 * producer's bytes; a codec rebuilds batches in another codec (records, timestamps, headers and
 * producer fields kept; CRC valid) and keeps batches already in it, whatever their level; the batch
 * as written must fit {@code message.max.bytes}; an undecompressible batch is CORRUPT_MESSAGE and
 * writes nothing; the non-blocking append declines recompression; a crash after a recompressed
 * append recovers it.
 */
class RecompressionTest {
    private static final long NOW = 1_700_000_000_000L;
    private static final List<String> TARGETS =
            List.of("uncompressed", "gzip", "snappy", "lz4", "zstd");

    @TempDir Path tmp;
    final MockTime time = new MockTime(NOW + 10_000);

    private PartitionLog open(String name, Map<String, String> cfg) throws Exception {
        return PartitionLog.open(tmp.resolve(name + "-0"), LogConfig.from(cfg), time);
    }

    private static CompressionType typeOf(String target) {
        return target.equals("uncompressed")
                ? CompressionType.NONE
                : CompressionType.forName(target);
    }

    @Test
    void everyCodecIsRewrittenIntoTheTopicsCodecKeepingRecordsAndProducerFields() {
        Property.forAll(
                25,
                r -> {
                    String target = TARGETS.get(r.nextInt(TARGETS.size()));
                    String name = "p" + Long.toHexString(r.nextLong());
                    try (PartitionLog log = open(name, Map.of("compression.type", target))) {
                        checkRewrite(r, log, typeOf(target));
                    }
                });
    }

    private void checkRewrite(Random r, PartitionLog log, CompressionType target) throws Exception {
        RandomBatches gen = new RandomBatches(r.nextLong(), NOW);
        List<SimpleRecord> sent = new ArrayList<>();
        List<ByteBuffer> requests = new ArrayList<>();
        int seq = 0;
        for (int i = 0; i < 1 + r.nextInt(6); i++) {
            List<SimpleRecord> recs = gen.records(30, 300);
            CompressionType codec = gen.codec();
            ByteBuffer b =
                    r.nextBoolean()
                            ? RandomBatches.idempotentBatch(codec, recs, 42L, (short) 3, seq)
                            : RandomBatches.batch(codec, recs);
            if (b.getLong(RecordBatchLayout.PRODUCER_ID_OFFSET) == 42L) {
                seq += recs.size();
            }
            requests.add(b);
            sent.addAll(recs);
        }
        List<RecordBatch> before = new ArrayList<>();
        for (ByteBuffer b : requests) {
            before.add(MemoryRecords.readableRecords(b.duplicate()).batches().iterator().next());
        }
        for (ByteBuffer b : requests) {
            log.append(LogTestSupport.copy(b));
        }
        List<RecordBatch> stored = LogTestSupport.readAll(log, Integer.MAX_VALUE);
        assertThat(stored).as("one stored batch per appended batch").hasSize(requests.size());
        List<Record> read = new ArrayList<>();
        long next = 0;
        for (int i = 0; i < stored.size(); i++) {
            RecordBatch s = stored.get(i);
            RecordBatch in = before.get(i);
            assertThat(s.compressionType()).isEqualTo(target);
            assertThat(s.isValid()).as("CRC of the rebuilt batch").isTrue();
            assertThat(s.baseOffset()).isEqualTo(next);
            assertThat(s.producerId()).isEqualTo(in.producerId());
            assertThat(s.producerEpoch()).isEqualTo(in.producerEpoch());
            assertThat(s.baseSequence()).isEqualTo(in.baseSequence());
            assertThat(s.lastSequence()).isEqualTo(in.lastSequence());
            assertThat(s.maxTimestamp()).isEqualTo(in.maxTimestamp());
            assertThat(s.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
            for (Record rec : s) {
                read.add(rec);
            }
            next = s.lastOffset() + 1;
        }
        assertThat(read).hasSameSizeAs(sent);
        for (int i = 0; i < sent.size(); i++) {
            SimpleRecord want = sent.get(i);
            Record got = read.get(i);
            assertThat(got.offset()).isEqualTo(i);
            assertThat(got.timestamp()).isEqualTo(want.timestamp());
            assertThat(got.key()).isEqualTo(want.key());
            assertThat(got.value()).isEqualTo(want.value());
            assertThat(got.headers()).containsExactly(want.headers());
        }
    }

    @Test
    void producerKeepsTheProducersBytesExactly() throws Exception {
        RandomBatches gen = new RandomBatches(11, NOW);
        List<ByteBuffer> sent = new ArrayList<>();
        try (PartitionLog log = open("producer", Map.of("compression.type", "producer"))) {
            for (CompressionType codec : RandomBatches.CODECS) {
                ByteBuffer b = RandomBatches.batch(codec, gen.records(20, 100));
                sent.add(b);
                log.append(LogTestSupport.copy(b));
            }
            List<RecordBatch> stored = LogTestSupport.readAll(log, 1 << 20);
            assertThat(stored).hasSameSizeAs(sent);
            for (int i = 0; i < sent.size(); i++) {
                assertThat(LogTestSupport.withBaseOffsetZero(stored.get(i)))
                        .as(RandomBatches.CODECS.get(i) + " batch stored as sent")
                        .isEqualTo(sent.get(i));
            }
        }
    }

    @Test
    void aBatchAlreadyInTheTopicsCodecIsKeptWhateverItsLevel() throws Exception {
        ByteBuffer sent = gzipBatch(1, 50);
        try (PartitionLog log =
                open("level", Map.of("compression.type", "gzip", "compression.gzip.level", "9"))) {
            log.append(LogTestSupport.copy(sent));
            RecordBatch stored = LogTestSupport.readAll(log, 1 << 20).get(0);
            assertThat(LogTestSupport.withBaseOffsetZero(stored)).isEqualTo(sent);
        }
    }

    @Test
    void theLevelOfTheTopicsCodecIsUsedWhenRecompressing() throws Exception {
        ByteBuffer plain = RandomBatches.batch(CompressionType.NONE, compressible(200));
        int fast =
                storedSize(
                        "z1",
                        Map.of("compression.type", "zstd", "compression.zstd.level", "1"),
                        plain);
        int best =
                storedSize(
                        "z19",
                        Map.of("compression.type", "zstd", "compression.zstd.level", "19"),
                        plain);
        assertThat(best).as("zstd level 19 vs 1").isLessThan(fast);
    }

    private int storedSize(String name, Map<String, String> cfg, ByteBuffer batch)
            throws Exception {
        try (PartitionLog log = open(name, cfg)) {
            log.append(LogTestSupport.copy(batch));
            return LogTestSupport.readAll(log, 1 << 20).get(0).sizeInBytes();
        }
    }

    @Test
    void theBatchAsWrittenMustFitMessageMaxBytes() throws Exception {
        List<SimpleRecord> recs = compressible(400);
        ByteBuffer zstd = RandomBatches.batch(CompressionType.ZSTD, recs);
        int plainSize = RandomBatches.batch(CompressionType.NONE, recs).remaining();
        Map<String, String> cfg = new HashMap<>();
        cfg.put("compression.type", "uncompressed");
        cfg.put(HotTierOptions.MESSAGE_MAX_BYTES.key(), Integer.toString(plainSize - 1));
        try (PartitionLog log = open("toolarge", cfg)) {
            assertThat(zstd.remaining()).isLessThan(plainSize - 1);
            assertThatThrownBy(() -> log.append(LogTestSupport.copy(zstd)))
                    .isInstanceOfSatisfying(
                            InvalidBatchException.class,
                            e -> assertThat(e.kind()).isEqualTo(Kind.MESSAGE_TOO_LARGE));
            assertThat(log.logEndOffset()).isZero();
            assertThat(Files.size(log.segments().get(0).logFile())).isZero();
        }
    }

    @Test
    void anUndecompressibleBatchIsCorruptMessageAndWritesNothing() throws Exception {
        ByteBuffer bad = gzipBatch(6, 20);
        // the gzip stream's magic, first bytes after the header, now says "not gzip"; CRC redone
        bad.put(RecordBatchLayout.RECORDS_OFFSET, (byte) 0x00);
        RecordBatchLayout.writeCrc(bad, 0, bad.remaining());
        try (PartitionLog log = open("corrupt", Map.of("compression.type", "zstd"))) {
            assertThatThrownBy(() -> log.append(LogTestSupport.copy(bad)))
                    .isInstanceOfSatisfying(
                            InvalidBatchException.class,
                            e -> assertThat(e.kind()).isEqualTo(Kind.CORRUPT_MESSAGE));
            assertThat(log.logEndOffset()).isZero();
            assertThat(Files.size(log.segments().get(0).logFile())).isZero();
        }
    }

    @Test
    void theNonBlockingAppendLeavesRecompressionToABlockingThread() throws Exception {
        ByteBuffer lz4 = RandomBatches.batch(CompressionType.LZ4, compressible(10));
        ByteBuffer zstd = RandomBatches.batch(CompressionType.ZSTD, compressible(10));
        try (PartitionLog log = open("nb", Map.of("compression.type", "zstd"))) {
            assertThat(log.appendWithoutBlocking(LogTestSupport.copy(lz4), -1))
                    .as("lz4 into a zstd topic")
                    .isNull();
            assertThat(log.logEndOffset()).isZero();
            assertThat(log.appendWithoutBlocking(LogTestSupport.copy(zstd), -1))
                    .as("already zstd: stored as is, on the caller's thread")
                    .isNotNull();
            assertThat(log.append(LogTestSupport.copy(lz4)).firstOffset()).isEqualTo(10);
        }
    }

    @Test
    void aMalformedRequestIsLeftToTheBlockingAppendWhichRefusesIt() throws Exception {
        ByteBuffer b = RandomBatches.batch(CompressionType.ZSTD, compressible(10));
        b.putInt(RecordBatchLayout.LENGTH_OFFSET, Integer.MAX_VALUE - 20); // runs past the end
        try (PartitionLog log = open("malformed", Map.of("compression.type", "zstd"))) {
            assertThat(log.appendWithoutBlocking(LogTestSupport.copy(b), -1)).isNull();
            assertThatThrownBy(() -> log.append(LogTestSupport.copy(b)))
                    .isInstanceOfSatisfying(
                            InvalidBatchException.class, e -> assertThat(e.kind()).isNotNull());
            assertThat(log.logEndOffset()).isZero();
        }
    }

    @Test
    void aRetriedIdempotentBatchIsADuplicateAfterRecompression() throws Exception {
        ByteBuffer b =
                RandomBatches.idempotentBatch(
                        CompressionType.GZIP, compressible(5), 7L, (short) 0, 0);
        try (PartitionLog log = open("dup", Map.of("compression.type", "lz4"))) {
            AppendResult first = log.append(LogTestSupport.copy(b));
            AppendResult again = log.append(LogTestSupport.copy(b));
            assertThat(again.duplicate()).isTrue();
            assertThat(again.firstOffset()).isEqualTo(first.firstOffset());
            assertThat(log.logEndOffset()).isEqualTo(5);
        }
    }

    @Test
    void logAppendTimeIsStampedOnTheRebuiltBatch() throws Exception {
        ByteBuffer b = RandomBatches.batch(CompressionType.NONE, compressible(5));
        try (PartitionLog log =
                open(
                        "lat",
                        Map.of(
                                "compression.type", "snappy",
                                "message.timestamp.type", "LogAppendTime"))) {
            log.append(LogTestSupport.copy(b));
            RecordBatch s = LogTestSupport.readAll(log, 1 << 20).get(0);
            assertThat(s.compressionType()).isEqualTo(CompressionType.SNAPPY);
            assertThat(s.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
            assertThat(s.maxTimestamp()).isEqualTo(time.milliseconds());
            assertThat(s.isValid()).isTrue();
        }
    }

    @Test
    void aCrashAfterRecompressedAppendsRecoversEveryBatch() throws Exception {
        LogConfig cfg = LogConfig.from(Map.of("compression.type", "gzip", "segment.bytes", "4096"));
        Path logDir = tmp.resolve("crash");
        TopicPartition tp = new TopicPartition("t", 0);
        LogManager crashed = LogManager.open(logDir, t -> cfg, time, null, p -> 0L);
        PartitionLog log = crashed.getOrCreate(tp);
        RandomBatches gen = new RandomBatches(5, NOW);
        List<SimpleRecord> sent = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            List<SimpleRecord> recs = gen.records(10, 100);
            sent.addAll(recs);
            log.append(RandomBatches.batch(CompressionType.ZSTD, recs));
        }
        long end = log.logEndOffset();
        assertThat(log.segments()).hasSizeGreaterThan(1);
        // a crash: no close, and a torn batch header at the tail of the active segment
        Path active = log.segments().get(log.segments().size() - 1).logFile();
        Files.write(
                active, new byte[] {0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 1}, StandardOpenOption.APPEND);
        crashed.releaseLockAsCrashWould();
        try (LogManager m = LogManager.open(logDir, t -> cfg, time, null, p -> 0L)) {
            PartitionLog reopened = m.partition(tp).orElseThrow();
            assertThat(reopened.logEndOffset()).isEqualTo(end);
            List<RecordBatch> all = LogTestSupport.readAll(reopened, 1 << 20);
            assertThat(all).allSatisfy(b -> assertThat(b.isValid()).isTrue());
            assertThat(all)
                    .allSatisfy(
                            b -> assertThat(b.compressionType()).isEqualTo(CompressionType.GZIP));
            List<Record> read = new ArrayList<>();
            all.forEach(b -> b.forEach(read::add));
            assertThat(read).hasSameSizeAs(sent);
            for (int i = 0; i < sent.size(); i++) {
                assertThat(read.get(i).value()).isEqualTo(sent.get(i).value());
            }
            // and the log takes appends again, recompressed
            reopened.append(RandomBatches.batch(CompressionType.NONE, gen.records(3, 10)));
            assertThat(LogTestSupport.readAll(reopened, 1 << 20).get(all.size()).compressionType())
                    .isEqualTo(CompressionType.GZIP);
        }
    }

    private static List<SimpleRecord> compressible(int n) {
        List<SimpleRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(
                    new SimpleRecord(
                            NOW + i,
                            ("key-" + (i % 7)).getBytes(),
                            ("value value value value value value " + i).getBytes()));
        }
        return out;
    }

    private static ByteBuffer gzipBatch(int level, int n) {
        ByteBuffer buf = ByteBuffer.allocate(1 << 16);
        MemoryRecordsBuilder b =
                MemoryRecords.builder(
                        buf,
                        RecordBatch.MAGIC_VALUE_V2,
                        Compression.gzip().level(level).build(),
                        TimestampType.CREATE_TIME,
                        0L);
        for (SimpleRecord r : compressible(n)) {
            b.append(r);
        }
        return LogTestSupport.copy(b.build().buffer());
    }
}
