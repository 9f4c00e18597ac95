package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.MockTime;
import io.tierlog.hot.HotTierOptions;
import io.tierlog.hot.PartitionLog;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Topic configs that act on append, rolls, flushes and (hot-only) retention act per topic: in each
 * test one topic carries the override and a twin topic with the engine's defaults gets the same
 * appends, and only the first behaves differently. The engine runs hot-only ({@code
 * tiered.enabled=false}) on a clock the test moves.
 */
class PerTopicLogConfigTest {
    private static final long NOW = 1_700_000_000_000L;
    private static final TopicPartition PLAIN = new TopicPartition("plain", 0);
    private static final TopicPartition TUNED = new TopicPartition("tuned", 0);

    @TempDir Path dir;
    final MockTime time = new MockTime(NOW);
    TieredLog log;

    @BeforeEach
    void open() throws Exception {
        log =
                TieredLog.builder(
                                TopicRegistryTest.hotOnly(dir, Map.of("file.delete.delay.ms", "0")))
                        .time(time)
                        .open();
    }

    @AfterEach
    void close() throws Exception {
        log.close();
    }

    private void twins(Map<String, String> tuned) throws Exception {
        log.createTopic(PLAIN.topic(), 1, Map.of());
        log.createTopic(TUNED.topic(), 1, tuned);
    }

    private static ByteBuffer batch(Compression c, long ts, int n, int valueBytes) {
        SimpleRecord[] recs = new SimpleRecord[n];
        for (int i = 0; i < n; i++) {
            recs[i] =
                    new SimpleRecord(
                            ts,
                            ("k" + i).getBytes(StandardCharsets.UTF_8),
                            "v".repeat(valueBytes).getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(c, recs).buffer();
    }

    private void appendBoth(int batches, int valueBytes) throws Exception {
        for (int i = 0; i < batches; i++) {
            log.append(PLAIN, batch(Compression.NONE, time.milliseconds(), 4, valueBytes));
            log.append(TUNED, batch(Compression.NONE, time.milliseconds(), 4, valueBytes));
        }
    }

    private PartitionLog hot(TopicPartition tp) {
        return log.hotLog(tp).orElseThrow();
    }

    private List<RecordBatch> readAll(TopicPartition tp) throws Exception {
        return EngineFixture.batches(
                EngineFixture.get(log.read(tp, log.earliestOffset(tp), 1 << 24)));
    }

    @Test
    void segmentBytesRollsOnlyTheTopicThatSetsIt() throws Exception {
        twins(Map.of("internal.segment.bytes", "4096"));
        appendBoth(40, 200);
        assertThat(hot(TUNED).segments()).hasSizeGreaterThan(5);
        assertThat(hot(TUNED).segments())
                .allSatisfy(s -> assertThat(s.sizeInBytes()).isLessThanOrEqualTo(4096));
        assertThat(hot(PLAIN).segments()).hasSize(1);
    }

    @Test
    void segmentIndexBytesRollsOnlyTheTopicThatSetsIt() throws Exception {
        // a 48-byte offset index holds 6 entries, one per batch after the first with
        // index.interval.bytes=1: a full index rolls the segment after 7 batches (28 records)
        twins(Map.of("segment.index.bytes", "48", "index.interval.bytes", "1"));
        appendBoth(20, 10);
        var segs = hot(TUNED).segments();
        assertThat(segs).hasSizeGreaterThanOrEqualTo(3);
        for (int i = 0; i < segs.size() - 1; i++) {
            assertThat(segs.get(i + 1).baseOffset() - segs.get(i).baseOffset())
                    .isLessThanOrEqualTo(28);
        }
        assertThat(hot(PLAIN).segments()).hasSize(1);
    }

    @Test
    void segmentMsRollsOnlyTheTopicThatSetsIt() throws Exception {
        twins(Map.of("segment.ms", "1000"));
        appendBoth(1, 10);
        time.advance(999);
        log.maintain();
        assertThat(hot(TUNED).segments()).hasSize(1);
        time.advance(1);
        log.maintain();
        assertThat(hot(TUNED).segments()).as("rolled at segment.ms").hasSize(2);
        assertThat(hot(PLAIN).segments()).hasSize(1);
    }

    @Test
    void segmentJitterMsRollsBeforeSegmentMsOnlyOnTheTopicThatSetsIt() throws Exception {
        // jitter is drawn in [0, 10000) per segment: rolling at 10000 ms for 10 segments in a row
        // means jitter 0 ten times, odds 1e-40; rolling early proves it acts
        twins(Map.of("segment.ms", "10000", "segment.jitter.ms", "10000"));
        log.createTopic("control", 1, Map.of("segment.ms", "10000"));
        TopicPartition control = new TopicPartition("control", 0);
        int early = 0;
        for (int i = 0; i < 10; i++) {
            log.append(TUNED, batch(Compression.NONE, time.milliseconds(), 1, 10));
            log.append(control, batch(Compression.NONE, time.milliseconds(), 1, 10));
            int before = hot(TUNED).segments().size();
            int controlBefore = hot(control).segments().size();
            time.advance(9999);
            log.maintain();
            if (hot(TUNED).segments().size() > before) {
                early++;
            }
            assertThat(hot(control).segments()).hasSize(controlBefore);
            time.advance(1);
            log.maintain();
            assertThat(hot(TUNED).segments()).hasSize(before + 1);
            assertThat(hot(control).segments()).hasSize(controlBefore + 1);
        }
        assertThat(early).isPositive();
        assertThat(hot(PLAIN).segments()).hasSize(1);
    }

    @Test
    void flushMessagesFsyncsOnlyTheTopicThatSetsIt() throws Exception {
        twins(Map.of("flush.messages", "1"));
        appendBoth(3, 10);
        assertThat(hot(TUNED).recoveryPoint()).as("fsynced after each record").isEqualTo(12);
        assertThat(hot(PLAIN).recoveryPoint()).as("page cache only").isZero();
    }

    @Test
    void flushMsFsyncsOnlyTheTopicThatSetsIt() throws Exception {
        twins(Map.of("flush.ms", "1000"));
        appendBoth(3, 10);
        log.maintain();
        assertThat(hot(TUNED).recoveryPoint()).isZero();
        time.advance(1000);
        log.maintain();
        assertThat(hot(TUNED).recoveryPoint()).as("flushed once flush.ms passed").isEqualTo(12);
        assertThat(hot(PLAIN).recoveryPoint()).isZero();
    }

    @Test
    void retentionBytesDeletesTheOldestSegmentsOfThatTopicOnly() throws Exception {
        Map<String, String> cfg =
                Map.of("internal.segment.bytes", "4096", "retention.bytes", "8192");
        log.createTopic(PLAIN.topic(), 1, Map.of("internal.segment.bytes", "4096"));
        log.createTopic(TUNED.topic(), 1, cfg);
        appendBoth(60, 200);
        log.maintain();
        long size = hot(TUNED).segments().stream().mapToLong(s -> s.sizeInBytes()).sum();
        assertThat(hot(TUNED).logStartOffset()).isPositive();
        assertThat(size - hot(TUNED).segments().get(hot(TUNED).segments().size() - 1).sizeInBytes())
                .as("closed segments kept within retention.bytes")
                .isLessThanOrEqualTo(8192);
        assertThat(log.earliestOffset(TUNED)).isEqualTo(hot(TUNED).logStartOffset());
        assertThat(hot(PLAIN).logStartOffset()).isZero();
        assertThat(readAll(PLAIN).get(0).baseOffset()).isZero();
    }

    @Test
    void retentionMsDeletesOldSegmentsOfThatTopicOnly() throws Exception {
        Map<String, String> seg = Map.of("internal.segment.bytes", "4096");
        log.createTopic(PLAIN.topic(), 1, seg);
        log.createTopic(
                TUNED.topic(),
                1,
                Map.of("internal.segment.bytes", "4096", "retention.ms", "60000"));
        appendBoth(40, 200);
        log.maintain();
        assertThat(hot(TUNED).logStartOffset()).as("younger than retention.ms").isZero();
        time.advance(60_001);
        log.maintain();
        assertThat(hot(TUNED).segments()).as("only the active segment is left").hasSize(1);
        assertThat(hot(TUNED).logStartOffset()).isPositive();
        assertThat(hot(PLAIN).logStartOffset()).isZero();
    }

    @Test
    void maxMessageBytesRefusesLargeBatchesOnlyOnTheTopicThatSetsIt() throws Exception {
        twins(Map.of(HotTierOptions.MAX_MESSAGE_BYTES.key(), "1000"));
        ByteBuffer big = batch(Compression.NONE, NOW, 4, 400);
        assertThatThrownBy(() -> log.append(TUNED, EngineFixture.copy(big)))
                .isInstanceOf(RecordTooLargeException.class);
        assertThat(log.latestOffset(TUNED)).isZero();
        assertThat(log.append(PLAIN, EngineFixture.copy(big)).firstOffset()).isZero();
    }

    @Test
    void maxMessageBytesCountsTheBatchAsRecompressed() throws Exception {
        ByteBuffer zstd = batch(Compression.zstd().build(), NOW, 50, 100);
        int plainSize = batch(Compression.NONE, NOW, 50, 100).remaining();
        assertThat(zstd.remaining()).isLessThan(1000);
        assertThat(plainSize).isGreaterThan(4000);
        twins(
                Map.of(
                        HotTierOptions.MAX_MESSAGE_BYTES.key(),
                        "2000",
                        "compression.type",
                        "uncompressed"));
        assertThatThrownBy(() -> log.append(TUNED, EngineFixture.copy(zstd)))
                .as("fits as sent, too large as written")
                .isInstanceOf(RecordTooLargeException.class);
        assertThat(log.latestOffset(TUNED)).isZero();
    }

    @Test
    void logAppendTimeStampsOnlyTheTopicThatSetsIt() throws Exception {
        twins(Map.of("message.timestamp.type", "LogAppendTime"));
        time.advance(5_000);
        log.append(PLAIN, batch(Compression.NONE, NOW, 2, 10));
        Appended a = log.append(TUNED, batch(Compression.NONE, NOW, 2, 10));
        assertThat(a.logAppendTime()).isEqualTo(NOW + 5_000);
        RecordBatch tuned = readAll(TUNED).get(0);
        assertThat(tuned.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(tuned.maxTimestamp()).isEqualTo(NOW + 5_000);
        RecordBatch plain = readAll(PLAIN).get(0);
        assertThat(plain.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
        assertThat(plain.maxTimestamp()).isEqualTo(NOW);
    }

    @Test
    void timestampBoundsRefuseOnlyOnTheTopicThatSetsThem() throws Exception {
        twins(
                Map.of(
                        "message.timestamp.before.max.ms", "1000",
                        "message.timestamp.after.max.ms", "1000"));
        ByteBuffer old = batch(Compression.NONE, NOW - 1001, 1, 10);
        ByteBuffer ahead = batch(Compression.lz4().build(), NOW + 1001, 1, 10);
        assertThatThrownBy(() -> log.append(TUNED, EngineFixture.copy(old)))
                .isInstanceOf(InvalidTimestampException.class);
        assertThatThrownBy(() -> log.append(TUNED, EngineFixture.copy(ahead)))
                .isInstanceOf(InvalidTimestampException.class);
        assertThat(log.append(TUNED, batch(Compression.NONE, NOW - 1000, 1, 10)).firstOffset())
                .as("at the bound")
                .isZero();
        assertThat(log.append(PLAIN, EngineFixture.copy(old)).firstOffset()).isZero();
        assertThat(log.append(PLAIN, EngineFixture.copy(ahead)).firstOffset()).isEqualTo(1);
    }

    @Test
    void compressionTypeRecompressesOnlyTheTopicThatSetsIt() throws Exception {
        twins(Map.of("compression.type", "zstd", "compression.zstd.level", "5"));
        ByteBuffer gzip = batch(Compression.gzip().build(), NOW, 10, 50);
        assertThat(log.appendWithoutBlocking(TUNED, EngineFixture.copy(gzip)))
                .as("recompression is left to a thread that may block")
                .isEmpty();
        log.append(TUNED, EngineFixture.copy(gzip));
        log.append(PLAIN, EngineFixture.copy(gzip));
        assertThat(readAll(TUNED).get(0).compressionType()).isEqualTo(CompressionType.ZSTD);
        assertThat(readAll(PLAIN).get(0).compressionType()).isEqualTo(CompressionType.GZIP);
        assertThat(log.appendWithoutBlocking(PLAIN, EngineFixture.copy(gzip)))
                .as("producer: on the caller's thread")
                .isPresent();
    }
}
