package io.tierlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ColdBatches;
import io.tierlog.cold.ParquetLogReader;
import io.tierlog.cold.TxnState;
import io.tierlog.cold.testing.TxnBatches;
import io.tierlog.common.Time;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.hot.LogConfig;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.SegmentInfo;
import io.tierlog.hot.VerificationGuard;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The offload stops below the last stable offset: a closed segment holding an open transaction's
 * batches (or lying past its start) waits, and the lag says which transaction holds it; once the
 * transaction ends, the segments go, and every transactional batch carries its outcome, also when
 * its marker lies in a later segment. Runs over a Kafka-layout log dir ({@link LogDirSource}) and
 * over tierlog's own log manager ({@link LogManagerSource}, whose LSO and aborted list are the hot
 * tier's).
 */
class TxnOffloadCapIT {
    static final TopicPartition TP = new TopicPartition("orders", 1);

    @TempDir Path dir;
    @AutoClose ColdTierFixture cold;
    Path logDir;
    Map<String, String> settings;

    @BeforeEach
    void setUp() throws Exception {
        cold = ColdTierFixture.start(dir);
        logDir = dir.resolve("log");
        settings = Map.of(CompactorOptions.OFFLOAD_TMP_DIR.key(), dir.resolve("tmp").toString());
    }

    /** Writes the batches from index {@code from} (inclusive) to {@code to} as one segment. */
    private void segment(List<MemoryRecords> batches, int from, int to) throws IOException {
        Path part = Files.createDirectories(logDir.resolve(TP.topic() + "-" + TP.partition()));
        long base = batches.get(from).firstBatch().baseOffset();
        int size = 0;
        for (int i = from; i < to; i++) {
            size += batches.get(i).sizeInBytes();
        }
        ByteBuffer buf = ByteBuffer.allocate(size);
        for (int i = from; i < to; i++) {
            buf.put(batches.get(i).buffer().duplicate());
        }
        Files.write(part.resolve(String.format("%020d.log", base)), buf.array());
    }

    @Test
    void aSegmentWithAnOpenTransactionWaitsUntilItEndsAndOutcomesFollowLaterMarkers()
            throws Exception {
        TxnBatches h =
                new TxnBatches(0, CompressionType.NONE)
                        .plain(3) // 0-2
                        .txn(1, 2) // 3-4
                        .txn(2, 2) // 5-6, aborted by the marker in the next segment
                        .marker(1, true) // 7
                        .txn(2, 1) // 8
                        .marker(2, false) // 9
                        .plain(2) // 10-11
                        .txn(3, 2) // 12-13: P3 opens here and stays open
                        .plain(2) // 14-15
                        .txn(3, 1); // 16
        List<MemoryRecords> b = h.batches();
        segment(b, 0, 4); // 0..7
        segment(b, 4, 8); // 8..13
        segment(b, 8, 10); // 14..16 (active)

        try (LogDirSource source = LogDirSource.open(logDir);
                Compactor c = cold.compactor(source, Optional.of(logDir), settings, Time.SYSTEM)) {
            assertThat(source.lastStableOffset(TP)).isEqualTo(12);
            assertThat(c.runOnce().failedPartitions()).isZero();
            assertThat(cold.catalog().objects(TP.topic(), TP.partition()))
                    .extracting(ColdObject::lastOffset)
                    .containsExactly(7L);
            PartitionLag lag = c.lag().get(TP);
            assertThat(lag.heldBack()).contains("open transaction of producer 3 since offset 12");
            assertThat(lag.coldHighWatermark()).isEqualTo(8);
        }

        // P3 aborts; the active segment rolls
        TxnBatches more = new TxnBatches(17, CompressionType.NONE).marker(3, false).plain(1);
        List<MemoryRecords> all = new java.util.ArrayList<>(b);
        all.addAll(more.batches());
        Files.delete(logDir.resolve("orders-1").resolve(String.format("%020d.log", 14)));
        segment(all, 8, 11); // 14..17
        segment(all, 11, 12); // 18 (active)
        try (LogDirSource source = LogDirSource.open(logDir);
                Compactor c = cold.compactor(source, Optional.of(logDir), settings, Time.SYSTEM)) {
            assertThat(source.lastStableOffset(TP)).isEqualTo(19);
            assertThat(c.runOnce().failedPartitions()).isZero();
            assertThat(c.lag().get(TP).heldBack()).isEmpty();
        }
        List<ColdObject> objects = cold.catalog().objects(TP.topic(), TP.partition());
        assertThat(objects.get(objects.size() - 1).lastOffset()).isEqualTo(17);
        Map<Long, TxnState> got = new HashMap<>();
        for (ColdObject o : objects) {
            ParquetLogReader r = new ParquetLogReader(cold.store(), o.key(), o.sizeInBytes());
            ColdBatches cb = r.readBatches(o.firstOffset(), Integer.MAX_VALUE);
            for (RecordBatch batch : cb.records().batches()) {
                got.put(batch.baseOffset(), cb.txnState(batch));
            }
        }
        Map<Long, TxnState> expected = new HashMap<>();
        for (long o : new long[] {0, 10, 14}) {
            expected.put(o, TxnState.NONE);
        }
        for (long o : new long[] {3, 7}) {
            expected.put(o, TxnState.COMMITTED);
        }
        for (long o : new long[] {5, 8, 9, 12, 16, 17}) {
            expected.put(o, TxnState.ABORTED);
        }
        assertThat(got).isEqualTo(expected);
    }

    @Test
    void ownLogManagerHoldsClosedSegmentsOfAnOpenTransactionUntilItsAbortMarker() throws Exception {
        try (LogManager lm =
                LogManager.open(
                        dir.resolve("own"),
                        topic -> LogConfig.from(Map.of("segment.bytes", "4096")),
                        Time.SYSTEM,
                        null)) {
            PartitionLog log = lm.getOrCreate(TP);
            TxnBatches plain = new TxnBatches(0, CompressionType.NONE).plain(5);
            log.append(plain.batches().get(0).buffer().duplicate());
            VerificationGuard guard = log.maybeStartTxnVerification(7, 5, (short) 0, false);
            MemoryRecords txn = new TxnBatches(5, CompressionType.NONE).txn(7, 3).batches().get(0);
            log.append(txn.buffer().duplicate(), PartitionLog.NO_PARTITION_LEADER_EPOCH, guard);
            long next = 8;
            while (log.segments().size() < 4) {
                TxnBatches more = new TxnBatches(next, CompressionType.NONE).plain(20);
                log.append(more.batches().get(0).buffer().duplicate());
                next = more.nextOffset();
            }
            assertThat(log.lastStableOffset()).isEqualTo(5);
            try (LogManagerSource source = new LogManagerSource(lm);
                    Compactor c = cold.compactor(source, Optional.empty(), settings, Time.SYSTEM)) {
                assertThat(c.runOnce().failedPartitions()).isZero();
                assertThat(cold.catalog().objects(TP.topic(), TP.partition())).isEmpty();
                assertThat(c.lag().get(TP).heldBack())
                        .contains("open transaction of producer 7 since offset 5");

                log.appendEndTxnMarker(7, (short) 0, 0, false, 1);
                assertThat(log.lastStableOffset()).isEqualTo(log.logEndOffset());
                assertThat(c.runOnce().failedPartitions()).isZero();
                List<ColdObject> objects = cold.catalog().objects(TP.topic(), TP.partition());
                long closedEnd = 0;
                for (SegmentInfo s : log.segments()) {
                    if (s.closed()) {
                        closedEnd = s.nextOffset();
                    }
                }
                assertThat(objects.get(objects.size() - 1).lastOffset() + 1).isEqualTo(closedEnd);
                ColdObject first = objects.get(0);
                ColdBatches cb =
                        new ParquetLogReader(cold.store(), first.key(), first.sizeInBytes())
                                .readBatches(5, 1);
                RecordBatch aborted = cb.records().batches().iterator().next();
                assertThat(aborted.baseOffset()).isEqualTo(5);
                assertThat(cb.txnState(aborted))
                        .as("its abort marker lies in a later segment")
                        .isEqualTo(TxnState.ABORTED);
                assertThat(c.lag().get(TP).heldBack()).isEmpty();
            }
        }
    }
}
