package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.cold.testing.LocalDirObjectStore;
import io.tierlog.cold.testing.TxnBatches;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transactions through a cold object: control batches come back as they went in (Verifier's batch
 * equality), every batch keeps the outcome the offload gave it in {@code batch_txn_state}, and a
 * chunk's aborted runs are what a read_committed reader of it must skip, from any start offset and
 * chunk size.
 */
class TxnStateRoundTripTest {
    @TempDir Path dir;

    /**
     * Offsets: 0-2 plain; 3-4 P1; 5-6 P2; 7 plain; 8 P1; 9 P1 commit; 10-11 P2; 12 P2 abort; 13 P2;
     * 14 P3; 15 P2 abort; 16 P3 (P3's abort marker lies beyond the object).
     */
    static TxnBatches history(CompressionType codec) {
        return new TxnBatches(0, codec)
                .plain(3)
                .txn(1, 2)
                .txn(2, 2)
                .plain(1)
                .txn(1, 1)
                .marker(1, true)
                .txn(2, 2)
                .marker(2, false)
                .txn(2, 1)
                .txn(3, 1)
                .marker(2, false)
                .txn(3, 1);
    }

    /** The outcome the offload decides for each batch of {@link #history}, by base offset. */
    static final Set<Long> ABORTED_BASES = Set.of(5L, 10L, 12L, 13L, 14L, 15L, 16L);

    static TxnState stateOf(RecordBatch b) {
        if (!b.isTransactional()) {
            return TxnState.NONE;
        }
        return ABORTED_BASES.contains(b.baseOffset()) ? TxnState.ABORTED : TxnState.COMMITTED;
    }

    private ParquetLogReader write(TxnBatches h, String key) throws IOException {
        Path file = dir.resolve(key + ".parquet");
        try (ParquetLogWriter w = ParquetLogWriter.open(file, "t", 0, ColdTierOptions.defaults())) {
            for (MemoryRecords m : h.batches()) {
                RecordBatch b = m.firstBatch();
                w.append(b, stateOf(b));
            }
            w.finish();
        }
        LocalDirObjectStore store = new LocalDirObjectStore(dir.resolve("store-" + key));
        store.put(key, file);
        return new ParquetLogReader(store, key, Files.size(file));
    }

    @Test
    void controlBatchesAndOutcomesSurviveTheObjectForEveryCodec() throws IOException {
        for (CompressionType codec : List.of(CompressionType.NONE, CompressionType.ZSTD)) {
            TxnBatches h = history(codec);
            ParquetLogReader reader = write(h, "o-" + codec);
            List<RecordBatch> original = new ArrayList<>();
            h.batches().forEach(m -> original.add(m.firstBatch()));
            ColdBatches all = reader.readBatches(0, Integer.MAX_VALUE);
            List<RecordBatch> got = new ArrayList<>();
            all.records().batches().forEach(got::add);
            BatchFidelityPropertyTest.assertSameBatches(got, original);
            for (RecordBatch b : got) {
                assertThat(all.txnState(b)).as("batch %d", b.baseOffset()).isEqualTo(stateOf(b));
            }
            assertThat(all.txnStatesStored()).isTrue();
            assertThat(reader.formatVersion()).isEqualTo(2);
            assertThat(all.abortedRuns())
                    .containsExactly(
                            new AbortedRun(2, 5, 12),
                            new AbortedRun(2, 13, 15),
                            new AbortedRun(3, 14, 16));
        }
    }

    @Test
    void abortedRunsOfAnyChunkCoverEveryAbortedBatchInsideItsOwnTransaction() throws IOException {
        TxnBatches h = history(CompressionType.NONE);
        ParquetLogReader reader = write(h, "chunks");
        for (int maxBytes : new int[] {1, 200, 400, Integer.MAX_VALUE}) {
            for (long from = 0; from < h.nextOffset(); from++) {
                ColdBatches c = reader.readBatches(from, maxBytes);
                ColdBatches reference = reader.readBatchesWithRecordReader(from, maxBytes);
                assertThat(c.records().buffer()).isEqualTo(reference.records().buffer());
                assertThat(c.abortedRuns())
                        .as("columnar and record reader agree from %d", from)
                        .isEqualTo(reference.abortedRuns());
                for (RecordBatch b : reference.records().batches()) {
                    assertThat(reference.txnState(b)).isEqualTo(stateOf(b));
                }
                List<AbortedRun> runs = c.abortedRuns();
                for (RecordBatch b : c.records().batches()) {
                    assertThat(c.txnState(b)).isEqualTo(stateOf(b));
                    if (b.isControlBatch() || stateOf(b) != TxnState.ABORTED) {
                        // a committed batch of a producer is never inside one of its runs
                        assertThat(runs)
                                .noneMatch(
                                        r ->
                                                !b.isControlBatch()
                                                        && r.producerId() == b.producerId()
                                                        && r.firstOffset() <= b.baseOffset()
                                                        && b.baseOffset() <= r.lastOffset());
                        continue;
                    }
                    assertThat(runs)
                            .as("from %d, %d bytes: batch %d", from, maxBytes, b.baseOffset())
                            .anyMatch(
                                    r ->
                                            r.producerId() == b.producerId()
                                                    && r.firstOffset() <= b.baseOffset()
                                                    && b.lastOffset() <= r.lastOffset());
                }
            }
        }
        // a one-batch chunk of P2's second transaction: the run starts at its own first batch
        assertThat(reader.readBatches(13, 1).abortedRuns())
                .containsExactly(new AbortedRun(2, 13, 13));
        assertThat(reader.readBatches(0, Integer.MAX_VALUE).abortedRuns(13, 14))
                .containsExactly(new AbortedRun(2, 13, 15));
    }

    @Test
    void writerRefusesStatesThatContradictTheBatch() throws IOException {
        TxnBatches h = history(CompressionType.NONE);
        Map<Long, RecordBatch> byBase = new java.util.HashMap<>();
        h.batches().forEach(m -> byBase.put(m.firstBatch().baseOffset(), m.firstBatch()));
        try (ParquetLogWriter w =
                ParquetLogWriter.open(
                        dir.resolve("x.parquet"), "t", 0, ColdTierOptions.defaults())) {
            assertThatThrownBy(() -> w.append(byBase.get(0L), TxnState.COMMITTED))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not transactional");
            assertThatThrownBy(() -> w.append(byBase.get(3L), TxnState.NONE))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("transactional");
            w.append(byBase.get(3L), TxnState.COMMITTED);
            // offset 9 is P1's commit marker
            assertThatThrownBy(() -> w.append(byBase.get(9L), TxnState.ABORTED))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("commit");
            w.append(byBase.get(9L));
            assertThat(w.recordCount()).isEqualTo(3);
        }
    }
}
