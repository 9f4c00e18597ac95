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

    @Test
    void aResumedScanAfterRollsAndRetentionEqualsAFreshOne() throws Exception {
        TxnBatches h =
                new TxnBatches(0, CompressionType.NONE)
                        .txn(1, 2) // 0-1
                        .plain(1) // 2
                        .txn(2, 1) // 3
                        .marker(1, false) // 4
                        .txn(3, 1) // 5
                        .marker(2, false) // 6
                        .marker(3, true) // 7
                        .txn(1, 1); // 8, open
        List<MemoryRecords> b = h.batches();
        Path part = Files.createDirectories(dir.resolve("t-0"));
        List<SegmentInfo> all = new ArrayList<>();
        int[][] cuts = {{0, 2}, {2, 4}, {4, 6}, {6, 8}};
        for (int[] c : cuts) {
            long base = b.get(c[0]).firstBatch().baseOffset();
            long next = b.get(c[1] - 1).firstBatch().lastOffset() + 1;
            ByteBuffer bytes = concat(b.subList(c[0], c[1]));
            Path f = part.resolve(String.format("%020d.log", base));
            Files.write(f, bytes.array());
            all.add(new SegmentInfo(TP, base, next, bytes.capacity(), -1, true, f));
        }
        TxnHeaderScan previous = null;
        for (int n = 1; n <= all.size(); n++) {
            List<SegmentInfo> now = new ArrayList<>(all.subList(0, n));
            SegmentInfo last = now.get(n - 1);
            now.set(
                    n - 1,
                    new SegmentInfo(
                            TP,
                            last.baseOffset(),
                            last.nextOffset(),
                            last.sizeInBytes(),
                            -1,
                            false,
                            last.logFile()));
            TxnHeaderScan resumed = TxnHeaderScan.of(now, previous);
            TxnHeaderScan fresh = TxnHeaderScan.of(now);
            assertSame(resumed, fresh);
            previous = resumed;
        }
        assertThat(previous.lastStableOffset()).isEqualTo(8);
        assertThat(previous.aborted(0, 9))
                .extracting(a -> List.of(a.producerId(), a.firstOffset(), a.lastOffset()))
                .containsExactly(List.of(1L, 0L, 4L), List.of(2L, 3L, 6L));
        // retention removed the first segment: the list's prefix changed, so a full scan
        List<SegmentInfo> retained = new ArrayList<>(all.subList(1, all.size()));
        assertSame(TxnHeaderScan.of(retained, previous), TxnHeaderScan.of(retained));
        assertThat(TxnHeaderScan.of(retained, previous).aborted(0, 9))
                .extracting(a -> List.of(a.producerId(), a.firstOffset(), a.lastOffset()))
                .containsExactly(List.of(2L, 3L, 6L));
    }

    private static void assertSame(TxnHeaderScan a, TxnHeaderScan b) {
        assertThat(a.lastStableOffset()).isEqualTo(b.lastStableOffset());
        assertThat(a.aborted(0, Long.MAX_VALUE)).isEqualTo(b.aborted(0, Long.MAX_VALUE));
        assertThat(a.oldestOpen()).isEqualTo(b.oldestOpen());
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
