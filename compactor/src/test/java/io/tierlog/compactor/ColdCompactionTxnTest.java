package io.tierlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ColdBatches;
import io.tierlog.cold.ColdTierOptions;
import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.ParquetLogReader;
import io.tierlog.cold.ParquetLogWriter;
import io.tierlog.cold.TxnState;
import io.tierlog.cold.WrittenObject;
import io.tierlog.cold.testing.LocalDirObjectStore;
import io.tierlog.cold.testing.TxnBatches;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cold compaction keeps Kafka's transaction rules: an aborted transaction's records neither shadow
 * older committed values of their keys nor survive the pass, markers stay (also an abort marker in
 * a later object than its data), and kept batches keep their outcome.
 */
class ColdCompactionTxnTest {
    @TempDir Path dir;

    @Test
    void abortedRecordsGoWithoutShadowingCommittedOnesAndMarkersStay() throws IOException {
        // keys are k<offset % 7>: offset 7 (aborted) has k0 like offset 0, 10 has k3 like 3
        TxnBatches h =
                new TxnBatches(0, CompressionType.NONE)
                        .plain(3) // 0-2
                        .txn(1, 2) // 3-4 committed
                        .txn(2, 3) // 5-7 aborted
                        .marker(1, true) // 8
                        .marker(2, false) // 9: the next object
                        .plain(1); // 10
        Set<Long> aborted = Set.of(5L, 9L);
        ObjectStore store = new LocalDirObjectStore(dir.resolve("s3"));
        ColdTierOptions opts = ColdTierOptions.defaults();
        List<MemoryRecords> b = h.batches();
        List<ColdObject> objects = new ArrayList<>();
        objects.add(object(store, opts, "t/0/a", b.subList(0, 4), aborted, 0));
        objects.add(object(store, opts, "t/0/b", b.subList(4, 6), aborted, 9));

        ColdRunRewriter rewriter =
                new ColdRunRewriter(store, opts, TypedColumnsSource.NONE, bytes -> {});
        ColdKeyMap map = new ColdKeyMap(64 * 1024);
        for (ColdObject o : objects) {
            rewriter.map(o, map);
        }
        ColdRecordFilter filter = new ColdRecordFilter(1_700_000_100_000L, 60_000, map, true);
        Path file = dir.resolve("run.parquet");
        ColdRunRewriter.Rewritten r = rewriter.rewrite(objects, filter, file, "t", 0);
        assertThat(r.changed()).isTrue();
        store.put("t/0/c", file);
        ParquetLogReader reader = new ParquetLogReader(store, "t/0/c", Files.size(file));
        ColdBatches got = reader.readBatches(0, Integer.MAX_VALUE);
        Map<Long, String> records = new LinkedHashMap<>();
        Map<Long, TxnState> states = new LinkedHashMap<>();
        for (RecordBatch batch : got.records().batches()) {
            states.put(batch.baseOffset(), got.txnState(batch));
            if (!batch.isControlBatch()) {
                for (Record rec : batch) {
                    records.put(
                            rec.offset(), StandardCharsets.UTF_8.decode(rec.value()).toString());
                }
            }
        }
        assertThat(records)
                .as("k0 keeps offset 0 (7 was aborted); k3 is 10; k4 is 4")
                .containsExactly(
                        Map.entry(0L, "0"),
                        Map.entry(1L, "1"),
                        Map.entry(2L, "2"),
                        Map.entry(4L, "4"),
                        Map.entry(10L, "10"));
        assertThat(states)
                .containsExactly(
                        Map.entry(0L, TxnState.NONE),
                        Map.entry(3L, TxnState.COMMITTED),
                        Map.entry(8L, TxnState.COMMITTED),
                        Map.entry(9L, TxnState.ABORTED),
                        Map.entry(10L, TxnState.NONE));
    }

    @Test
    void aMergedCopyKeepsEveryBatchWithItsOutcomeAbortedDataAndMarkersToo() throws IOException {
        TxnBatches h =
                new TxnBatches(0, CompressionType.NONE)
                        .plain(3) // 0-2
                        .txn(1, 2) // 3-4 committed
                        .txn(2, 3) // 5-7 aborted
                        .marker(1, true) // 8
                        .marker(2, false) // 9: the next object
                        .plain(1); // 10
        Set<Long> aborted = Set.of(5L, 9L);
        ObjectStore store = new LocalDirObjectStore(dir.resolve("s3"));
        ColdTierOptions opts = ColdTierOptions.defaults();
        List<MemoryRecords> b = h.batches();
        List<ColdObject> objects = new ArrayList<>();
        objects.add(object(store, opts, "t/0/a", b.subList(0, 4), aborted, 0));
        objects.add(object(store, opts, "t/0/b", b.subList(4, 6), aborted, 9));
        ColdBatches a =
                new ParquetLogReader(store, "t/0/a", objects.get(0).sizeInBytes())
                        .readBatches(0, Integer.MAX_VALUE);

        ColdRunRewriter rewriter =
                new ColdRunRewriter(store, opts, TypedColumnsSource.NONE, bytes -> {});
        Path file = dir.resolve("merged.parquet");
        WrittenObject w = rewriter.copy(objects, file, "t", 0, false);
        assertThat(w.firstOffset()).isZero();
        assertThat(w.lastOffset()).isEqualTo(10);
        store.put("t/0/m", file);
        ColdBatches got =
                new ParquetLogReader(store, "t/0/m", Files.size(file))
                        .readBatches(0, Integer.MAX_VALUE);
        Map<Long, TxnState> states = new LinkedHashMap<>();
        for (RecordBatch batch : got.records().batches()) {
            states.put(batch.baseOffset(), got.txnState(batch));
        }
        assertThat(states)
                .containsExactly(
                        Map.entry(0L, TxnState.NONE),
                        Map.entry(3L, TxnState.COMMITTED),
                        Map.entry(5L, TxnState.ABORTED),
                        Map.entry(8L, TxnState.COMMITTED),
                        Map.entry(9L, TxnState.ABORTED),
                        Map.entry(10L, TxnState.NONE));
        assertThat(got.txnStatesStored()).isTrue();
        assertThat(got.records().buffer())
                .as("the same batches, byte for byte")
                .isEqualTo(h.concatenated());
        assertThat(got.abortedRuns(0, 11))
                .as("a read_committed reader skips what it skipped in the originals")
                .extracting(r -> r.firstOffset())
                .containsExactlyElementsOf(
                        a.abortedRuns(0, 9).stream().map(r -> r.firstOffset()).toList());
    }

    private ColdObject object(
            ObjectStore store,
            ColdTierOptions opts,
            String key,
            List<MemoryRecords> batches,
            Set<Long> abortedBases,
            long first)
            throws IOException {
        Path file = dir.resolve(key.replace('/', '_') + ".parquet");
        WrittenObject w;
        try (ParquetLogWriter writer = ParquetLogWriter.open(file, "t", 0, opts)) {
            for (MemoryRecords m : batches) {
                RecordBatch b = m.firstBatch();
                writer.append(
                        b,
                        !b.isTransactional()
                                ? TxnState.NONE
                                : abortedBases.contains(b.baseOffset())
                                        ? TxnState.ABORTED
                                        : TxnState.COMMITTED);
            }
            w = writer.finish();
        }
        store.put(key, file);
        return new ColdObject(
                "t",
                0,
                first,
                w.lastOffset(),
                w.minTimestamp(),
                w.maxTimestamp(),
                w.recordCount(),
                Files.size(file),
                key,
                Instant.ofEpochMilli(0));
    }
}
