package io.tierlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.cold.testing.TxnBatches;
import io.tierlog.hot.SegmentInfo;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The header scan of a read-only log dir, against a model over whole batches, with the active
 * segment torn at every byte (a writer killed mid-append): the scan never reports a last stable
 * offset above the truth of the whole batches present, and lists exactly their aborted
 * transactions.
 */
class TxnHeaderScanTest {
    static final TopicPartition TP = new TopicPartition("t", 0);

    @TempDir Path dir;

    @Test
    void tornTailsNeverRaiseTheLastStableOffsetAndAbortedTransactionsMatchTheModel()
            throws Exception {
        TxnBatches h =
                new TxnBatches(0, CompressionType.NONE)
                        .plain(2) // 0-1
                        .txn(1, 2) // 2-3
                        .txn(2, 1) // 4
                        .marker(1, false) // 5
                        .plain(1) // 6
                        .txn(3, 2) // 7-8
                        .marker(2, true) // 9
                        .txn(1, 1) // 10
                        .marker(3, false) // 11
                        .marker(1, false); // 12
        List<MemoryRecords> batches = h.batches();
        Path part = Files.createDirectories(dir.resolve("t-0"));
        // segment 0: the first three batches; segment 1 (active): the rest, torn anywhere
        ByteBuffer first = concat(batches.subList(0, 3));
        Files.write(part.resolve(String.format("%020d.log", 0)), first.array());
        ByteBuffer rest = concat(batches.subList(3, batches.size()));
        Path active = part.resolve(String.format("%020d.log", 4));
        for (int cut = 0; cut <= rest.capacity(); cut++) {
            Files.write(active, Arrays.copyOf(rest.array(), cut));
            List<SegmentInfo> segments =
                    List.of(
                            new SegmentInfo(
                                    TP,
                                    0,
                                    4,
                                    first.capacity(),
                                    -1,
                                    true,
                                    part.resolve(String.format("%020d.log", 0))),
                            new SegmentInfo(TP, 4, 13, cut, -1, false, active));
            TxnHeaderScan scan = TxnHeaderScan.of(segments);
            List<RecordBatch> whole = new ArrayList<>();
            batches.subList(0, 3).forEach(m -> whole.add(m.firstBatch()));
            int bytes = 0;
            for (MemoryRecords m : batches.subList(3, batches.size())) {
                bytes += m.sizeInBytes();
                if (bytes <= cut) {
                    whole.add(m.firstBatch());
                }
            }
            Model model = new Model(whole);
            assertThat(scan.lastStableOffset()).as("cut at %d", cut).isEqualTo(model.lso);
            assertThat(scan.aborted(0, Long.MAX_VALUE))
                    .as("cut at %d", cut)
                    .extracting(a -> List.of(a.producerId(), a.firstOffset(), a.lastOffset()))
                    .isEqualTo(model.aborted);
            assertThat(scan.oldestOpen().map(o -> o.producerId())).isEqualTo(model.oldestOpenPid);
        }
    }

    /** The truth of whole batches: open transactions, aborted ones, the LSO. */
    private static final class Model {
        long lso;
        List<List<Long>> aborted = new ArrayList<>();
        java.util.Optional<Long> oldestOpenPid;

        Model(List<RecordBatch> batches) {
            Map<Long, Long> open = new LinkedHashMap<>();
            long end = 0;
            for (RecordBatch b : batches) {
                end = b.lastOffset() + 1;
                if (!b.isTransactional()) {
                    continue;
                }
                if (b.isControlBatch()) {
                    Long f = open.remove(b.producerId());
                    ControlRecordType type = ControlRecordType.parse(b.iterator().next().key());
                    if (f != null && type == ControlRecordType.ABORT) {
                        aborted.add(List.of(b.producerId(), f, b.baseOffset()));
                    }
                } else {
                    open.putIfAbsent(b.producerId(), b.baseOffset());
                }
            }
            oldestOpenPid = open.keySet().stream().findFirst();
            lso = open.values().stream().mapToLong(Long::longValue).min().orElse(end);
        }
    }

    private static ByteBuffer concat(List<MemoryRecords> batches) {
        int size = batches.stream().mapToInt(MemoryRecords::sizeInBytes).sum();
        ByteBuffer out = ByteBuffer.allocate(size);
        batches.forEach(m -> out.put(m.buffer().duplicate()));
        return out;
    }
}
