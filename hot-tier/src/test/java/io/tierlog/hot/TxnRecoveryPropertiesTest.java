package io.tierlog.hot;

import static io.tierlog.hot.TxnTestKit.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.common.testing.Property;
import io.tierlog.hot.testing.RandomBatches;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery of the active segment cut at arbitrary bytes, with open, committed and aborted
 * transactions: the reopened log's LSO, open transactions and aborted list equal those of a model
 * fed with the batches that survived, and the {@code .txnindex} never names a lost marker.
 */
class TxnRecoveryPropertiesTest {
    @TempDir Path tmp;

    /** One append of the history: its offsets and the segment size after it. */
    record Op(long pid, boolean marker, boolean commit, long first, long last, long endByte) {}

    @Test
    void truncatedActiveSegmentRebuildsTransactionState() {
        Property.forAll(
                12,
                random -> {
                    Path src = Files.createTempDirectory(tmp, "src").resolve("t-0");
                    MockTime time = new MockTime(1_700_000_000_000L);
                    List<Op> ops = new ArrayList<>();
                    try (PartitionLog log =
                            PartitionLog.open(
                                    src,
                                    LogConfig.from(Map.of("segment.bytes", "1000000")),
                                    time)) {
                        history(log, random, ops, time);
                    }
                    long size = ops.get(ops.size() - 1).endByte();
                    for (int t = 0; t < 6; t++) {
                        long cut = random.nextInt((int) size + 1);
                        checkCut(src, cut, ops, time);
                    }
                    checkCut(src, size, ops, time);
                });
    }

    private static void history(PartitionLog log, Random random, List<Op> ops, MockTime time)
            throws Exception {
        Map<Long, Integer> seq = new HashMap<>();
        Map<Long, Boolean> open = new HashMap<>();
        int n = 10 + random.nextInt(25);
        for (int i = 0; i < n; i++) {
            long pid = 100 + random.nextInt(3);
            boolean isOpen = open.getOrDefault(pid, false);
            AppendResult r;
            boolean marker = false;
            boolean commit = false;
            int choice = random.nextInt(10);
            if (choice < 2) {
                r =
                        log.append(
                                RandomBatches.batch(
                                        CompressionType.NONE,
                                        List.of(
                                                new SimpleRecord(
                                                        time.milliseconds(),
                                                        null,
                                                        "p".getBytes()))));
                pid = -1;
            } else if (isOpen && choice < 5) {
                marker = true;
                commit = random.nextBoolean();
                r = log.appendEndTxnMarker(pid, (short) 0, 0, commit, 1);
                open.put(pid, false);
            } else {
                int s = seq.getOrDefault(pid, 0);
                int count = 1 + random.nextInt(3);
                r = appendTxn(log, pid, (short) 0, s, count, time.milliseconds());
                seq.put(pid, s + count);
                open.put(pid, true);
            }
            ops.add(
                    new Op(
                            pid,
                            marker,
                            commit,
                            r.firstOffset(),
                            r.lastOffset(),
                            log.segments().get(log.segments().size() - 1).sizeInBytes()));
        }
    }

    private static void checkCut(Path src, long cut, List<Op> ops, MockTime time) throws Exception {
        Path dir = Files.createTempDirectory(src.getParent(), "cut").resolve("t-0");
        Files.createDirectories(dir);
        try (var files = Files.list(src)) {
            for (Path f : files.toList()) {
                Files.copy(f, dir.resolve(f.getFileName()));
            }
        }
        try (FileChannel ch =
                FileChannel.open(
                        dir.resolve(LogSegment.fileName(0) + ".log"), StandardOpenOption.WRITE)) {
            ch.truncate(cut);
        }
        // the model: Kafka's rules over the surviving batches
        TreeMap<Long, Long> ongoing = new TreeMap<>();
        Map<Long, Long> firstOf = new LinkedHashMap<>();
        List<AbortedTxn> aborted = new ArrayList<>();
        long end = 0;
        for (Op op : ops) {
            if (op.endByte() > cut) {
                break;
            }
            end = op.last() + 1;
            if (op.pid() < 0) {
                continue;
            }
            if (op.marker()) {
                Long first = firstOf.remove(op.pid());
                if (first != null) {
                    ongoing.remove(first);
                    if (!op.commit()) {
                        long lso = ongoing.isEmpty() ? op.first() + 1 : ongoing.firstKey();
                        aborted.add(new AbortedTxn(op.pid(), first, op.first(), lso));
                    }
                }
            } else if (!firstOf.containsKey(op.pid())) {
                firstOf.put(op.pid(), op.first());
                ongoing.put(op.first(), op.pid());
            }
        }
        try (PartitionLog log = PartitionLog.open(dir, LogConfig.defaults(), time)) {
            assertThat(log.logEndOffset()).as("log end after cut at %d", cut).isEqualTo(end);
            long lso = ongoing.isEmpty() ? end : ongoing.firstKey();
            assertThat(log.lastStableOffset()).as("LSO after cut at %d", cut).isEqualTo(lso);
            assertThat(log.ongoingTransactions())
                    .extracting(OngoingTxn::producerId)
                    .containsExactlyElementsOf(ongoing.values());
            assertThat(log.abortedTransactions(0, end + 1))
                    .as("aborted after cut at %d", cut)
                    .containsExactlyElementsOf(aborted);
        }
        // and again from the rebuilt files (a clean open)
        try (PartitionLog log = PartitionLog.open(dir, LogConfig.defaults(), time)) {
            assertThat(log.abortedTransactions(0, end + 1)).containsExactlyElementsOf(aborted);
            assertThat(
                            TxnIndex.load(dir.resolve(LogSegment.fileName(0) + ".txnindex"), 0, end)
                                    .entries())
                    .containsExactlyElementsOf(aborted);
        }
    }
}
