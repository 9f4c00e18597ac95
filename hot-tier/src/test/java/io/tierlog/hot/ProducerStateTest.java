package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.MockTime;
import io.tierlog.hot.ProducerStateException.Kind;
import io.tierlog.hot.testing.RandomBatches;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Idempotent producer rules: duplicates, gaps, epochs, and state rebuilt after reopen. */
class ProducerStateTest {
    @TempDir Path tmp;
    final MockTime time = new MockTime(1_700_000_000_000L);
    static final long PID = 1000;

    ByteBuffer batch(short epoch, int seq, int records) {
        SimpleRecord[] recs = new SimpleRecord[records];
        for (int i = 0; i < records; i++) {
            recs[i] = new SimpleRecord(time.milliseconds(), null, ("v" + i).getBytes());
        }
        return RandomBatches.idempotentBatch(CompressionType.NONE, List.of(recs), PID, epoch, seq);
    }

    @Test
    void retriedBatchIsNotWrittenTwiceAndReturnsOriginalOffsets() throws Exception {
        try (PartitionLog log = PartitionLog.open(tmp.resolve("p-0"), LogConfig.defaults(), time)) {
            AppendResult first = log.append(batch((short) 0, 0, 3));
            log.append(batch((short) 0, 3, 2));
            AppendResult retry = log.append(batch((short) 0, 0, 3));
            assertThat(retry.duplicate()).isTrue();
            assertThat(retry.firstOffset()).isEqualTo(first.firstOffset());
            assertThat(retry.lastOffset()).isEqualTo(first.lastOffset());
            assertThat(log.logEndOffset()).isEqualTo(5);
            assertThat(log.producerState(PID).orElseThrow().lastSequence()).isEqualTo(4);
        }
    }

    @Test
    void sequenceGapIsOutOfOrder() throws Exception {
        try (PartitionLog log = PartitionLog.open(tmp.resolve("p-0"), LogConfig.defaults(), time)) {
            log.append(batch((short) 0, 0, 3));
            assertThatThrownBy(() -> log.append(batch((short) 0, 5, 1)))
                    .isInstanceOfSatisfying(
                            ProducerStateException.class,
                            e -> assertThat(e.kind()).isEqualTo(Kind.OUT_OF_ORDER_SEQUENCE));
            assertThat(log.logEndOffset()).isEqualTo(3);
        }
    }

    @Test
    void olderEpochIsFencedAndNewEpochMustStartAtZero() throws Exception {
        try (PartitionLog log = PartitionLog.open(tmp.resolve("p-0"), LogConfig.defaults(), time)) {
            log.append(batch((short) 2, 0, 1));
            assertThatThrownBy(() -> log.append(batch((short) 1, 1, 1)))
                    .isInstanceOfSatisfying(
                            ProducerStateException.class,
                            e -> assertThat(e.kind()).isEqualTo(Kind.INVALID_PRODUCER_EPOCH));
            assertThatThrownBy(() -> log.append(batch((short) 3, 4, 1)))
                    .isInstanceOfSatisfying(
                            ProducerStateException.class,
                            e -> assertThat(e.kind()).isEqualTo(Kind.OUT_OF_ORDER_SEQUENCE));
            log.append(batch((short) 3, 0, 1));
            assertThat(log.producerState(PID).orElseThrow().producerEpoch()).isEqualTo((short) 3);
        }
    }

    @Test
    void unknownProducerIsAcceptedAtAnySequenceAsKafkaSince25() throws Exception {
        try (PartitionLog log = PartitionLog.open(tmp.resolve("p-0"), LogConfig.defaults(), time)) {
            assertThat(log.append(batch((short) 0, 42, 2)).duplicate()).isFalse();
            assertThat(log.producerState(PID).orElseThrow().lastSequence()).isEqualTo(43);
        }
    }

    @Test
    void onlyTheLastFiveBatchesAreRecognisedAsDuplicates() throws Exception {
        try (PartitionLog log = PartitionLog.open(tmp.resolve("p-0"), LogConfig.defaults(), time)) {
            for (int i = 0; i < 7; i++) {
                log.append(batch((short) 0, i, 1));
            }
            assertThat(log.append(batch((short) 0, 2, 1)).duplicate()).isTrue();
            assertThatThrownBy(() -> log.append(batch((short) 0, 1, 1)))
                    .isInstanceOf(ProducerStateException.class);
        }
    }

    @Test
    void stateSurvivesReopenAndDetectsDuplicatesAfterRestart() throws Exception {
        Path dir = tmp.resolve("p-0");
        AppendResult first;
        try (PartitionLog log = PartitionLog.open(dir, LogConfig.defaults(), time)) {
            log.append(batch((short) 0, 0, 2));
            first = log.append(batch((short) 0, 2, 2));
        }
        try (PartitionLog log = PartitionLog.open(dir, LogConfig.defaults(), time)) {
            AppendResult retry = log.append(batch((short) 0, 2, 2));
            assertThat(retry.duplicate()).isTrue();
            assertThat(retry.firstOffset()).isEqualTo(first.firstOffset());
            assertThatThrownBy(() -> log.append(batch((short) 0, 9, 1)))
                    .isInstanceOf(ProducerStateException.class);
            assertThat(log.append(batch((short) 0, 4, 1)).firstOffset()).isEqualTo(4);
        }
    }

    @Test
    void snapshotsOnRollAndCloseLimitReplayAndSurviveCorruption() throws Exception {
        Path dir = tmp.resolve("s-0");
        LogConfig cfg = LogConfig.from(java.util.Map.of("segment.bytes", "600"));
        int seq = 0;
        try (PartitionLog log = PartitionLog.open(dir, cfg, time)) {
            for (int i = 0; i < 20; i++) {
                log.append(batch((short) 0, seq, 3));
                seq += 3;
            }
            assertThat(log.segments().size()).isGreaterThan(3);
        }
        List<Long> snaps = ProducerSnapshots.list(dir);
        assertThat(snaps).hasSize(2);
        assertThat(snaps.get(1)).isEqualTo(60L);
        // clean reopen: state from the close snapshot, all 5 batches remembered
        try (PartitionLog log = PartitionLog.open(dir, cfg, time, null, 60, true)) {
            assertThat(log.producerState(PID).orElseThrow().batches()).hasSize(5);
            assertThat(log.append(batch((short) 0, seq - 6, 3)).duplicate()).isTrue();
        }
        // a corrupt newest snapshot falls back to the older one plus replay
        Path newest = dir.resolve(LogSegment.fileName(60) + ProducerSnapshots.SUFFIX);
        byte[] bytes = java.nio.file.Files.readAllBytes(newest);
        bytes[bytes.length - 1] ^= 1;
        java.nio.file.Files.write(newest, bytes);
        try (PartitionLog log = PartitionLog.open(dir, cfg, time)) {
            ProducerEntry e = log.producerState(PID).orElseThrow();
            assertThat(e.lastSequence()).isEqualTo(seq - 1);
            assertThat(e.batches()).hasSize(5);
            assertThat(log.append(batch((short) 0, seq, 1)).firstOffset()).isEqualTo(60);
        }
    }

    @Test
    void snapshotBeyondTheRecoveredLogEndIsIgnored() throws Exception {
        Path dir = tmp.resolve("t-0");
        try (PartitionLog log = PartitionLog.open(dir, LogConfig.defaults(), time)) {
            log.append(batch((short) 0, 0, 3));
            log.append(batch((short) 0, 3, 3));
        }
        // the tail batch is lost (torn write); the close snapshot at offset 6 must not be trusted
        Path seg = dir.resolve(LogSegment.fileName(0) + LogSegment.LOG_SUFFIX);
        try (var ch =
                java.nio.channels.FileChannel.open(seg, java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - 5);
        }
        try (PartitionLog log = PartitionLog.open(dir, LogConfig.defaults(), time)) {
            assertThat(log.logEndOffset()).isEqualTo(3);
            assertThat(log.producerState(PID).orElseThrow().lastSequence()).isEqualTo(2);
            assertThat(log.append(batch((short) 0, 3, 3)).duplicate()).isFalse();
        }
    }

    @Test
    void idleProducersExpireAfterProducerIdExpirationMs() throws Exception {
        LogConfig cfg = LogConfig.from(java.util.Map.of("producer.id.expiration.ms", "60000"));
        try (PartitionLog log = PartitionLog.open(tmp.resolve("x-0"), cfg, time)) {
            log.append(batch((short) 0, 0, 1));
            time.advance(59_999);
            assertThat(log.maybeExpireProducers()).isZero();
            time.advance(1);
            assertThat(log.maybeExpireProducers()).isEqualTo(1);
            assertThat(log.producerState(PID)).isEmpty();
            // an expired producer is unknown again: accepted at any sequence (KIP-360)
            assertThat(log.append(batch((short) 0, 7, 1)).duplicate()).isFalse();
        }
    }

    @Test
    void sequenceWrapsAfterIntegerMax() {
        assertThat(ProducerStateManager.inSequence(Integer.MAX_VALUE, 0)).isTrue();
        assertThat(ProducerStateManager.lastSequence(Integer.MAX_VALUE - 1, 3)).isEqualTo(1);
    }
}
