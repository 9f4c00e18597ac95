package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.testing.Property;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code read_committed} consumer, modelled by kafka-clients' {@code CompletedFetch} algorithm
 * (aborted entries of each fetch enter the aborted set when their first offset is at or below a
 * batch's last offset; transactional batches of a producer in the set are skipped; its abort marker
 * takes it out; control batches are never returned), reading the hot tier through {@link
 * TieredLog#read(TopicPartition, long, int, Isolation)} with random fetch sizes, sees exactly the
 * records of committed transactions and of non-transactional batches below the last stable offset,
 * in offset order, for random interleavings of transactional producers (TV1 and TV2 markers,
 * commits, aborts, transactions left open) over several segments, before and after a reopen, and in
 * a copy of the files taken while the log was open (what a kill -9 leaves), after recovery.
 */
class ReadCommittedModelTest {
    private static final TopicPartition TP = new TopicPartition("txn", 0);

    @TempDir Path dir;

    /** One producer of the history: its epoch, next sequence and open transaction. */
    private static final class Producer {
        final long pid;
        final int tv;
        short epoch;
        int seq;
        final List<String> open = new ArrayList<>();
        long firstOffset = -1;

        Producer(long pid, int tv) {
            this.pid = pid;
            this.tv = tv;
        }
    }

    @Test
    void aReadCommittedClientSeesExactlyTheCommittedRecordsInOrder() {
        Property.forAll(
                12,
                random -> {
                    Path d = Files.createTempDirectory(dir, "try");
                    runHistory(random, d);
                });
    }

    private void runHistory(Random random, Path d) throws Exception {
        Map<String, String> cfg = Map.of("segment.bytes", "" + Property.between(random, 600, 4000));
        List<String> committed = new ArrayList<>(); // "offset:value", in offset order
        List<String> all = new ArrayList<>();
        Map<Long, Long> expectedAborted = new HashMap<>();
        long expectedLso;
        try (TieredLog log = TieredLog.open(TopicRegistryTest.hotOnly(d, cfg))) {
            log.createTopic(TP.topic(), 1, Map.of());
            Transactions txns = log.transactions();
            List<Producer> producers = new ArrayList<>();
            int n = Property.between(random, 2, 4);
            for (int i = 0; i < n; i++) {
                producers.add(new Producer(1000 + i, random.nextBoolean() ? 2 : 1));
            }
            int steps = Property.between(random, 20, 120);
            for (int step = 0; step < steps; step++) {
                int choice = random.nextInt(10);
                Producer p = producers.get(random.nextInt(producers.size()));
                if (choice < 2) {
                    String v = "plain-" + step;
                    long off = log.append(TP, plainBatch(v)).firstOffset();
                    committed.add(off + ":" + v);
                    all.add(off + ":" + v);
                } else if (choice < 7 || p.open.isEmpty()) {
                    int records = Property.between(random, 1, 3);
                    TxnVerification token =
                            txns.startVerification(TP, p.pid, p.seq, p.epoch, p.tv >= 2);
                    assertThat(token == TxnVerification.NONE)
                            .as("a token is needed exactly when no transaction is open")
                            .isEqualTo(!p.open.isEmpty());
                    assertThat(txns.needsVerification(TP, p.pid)).isEqualTo(p.open.isEmpty());
                    Appended a =
                            log.append(
                                    TP,
                                    txnBatch(p.pid, p.epoch, p.seq, records, "s" + step),
                                    token);
                    p.seq += records;
                    for (int r = 0; r < records; r++) {
                        String rec = (a.firstOffset() + r) + ":" + "s" + step + "-" + r;
                        p.open.add(rec);
                        all.add(rec);
                    }
                    if (p.firstOffset < 0) {
                        p.firstOffset = a.firstOffset();
                    }
                } else {
                    boolean commit = random.nextBoolean();
                    short markerEpoch = p.tv >= 2 ? (short) (p.epoch + 1) : p.epoch;
                    long markerOffset = txns.appendMarker(TP, p.pid, markerEpoch, 0, commit, p.tv);
                    if (commit) {
                        committed.addAll(p.open);
                    } else {
                        expectedAborted.put(markerOffset, p.firstOffset);
                    }
                    if (p.tv >= 2) {
                        p.epoch = markerEpoch; // TV2 bumps the epoch at every end
                        p.seq = 0;
                    }
                    p.open.clear();
                    p.firstOffset = -1;
                }
            }
            expectedLso = log.latestOffset(TP);
            for (Producer p : producers) {
                if (p.firstOffset >= 0) {
                    expectedLso = Math.min(expectedLso, p.firstOffset);
                }
            }
            long lso = expectedLso;
            committed.sort(Comparator.comparingLong(ReadCommittedModelTest::offsetOf));
            List<String> visible = committed.stream().filter(r -> offsetOf(r) < lso).toList();
            assertThat(txns.lastStableOffset(TP)).isEqualTo(lso);
            assertThat(log.offsets(TP).lastStableOffset()).isEqualTo(lso);
            assertThat(txns.openTransactions(TP))
                    .extracting(OpenTransaction::firstOffset)
                    .isSorted()
                    .containsExactlyInAnyOrderElementsOf(
                            producers.stream()
                                    .filter(p -> p.firstOffset >= 0)
                                    .map(p -> p.firstOffset)
                                    .toList());
            assertThat(readCommitted(log, random, lso))
                    .as("read_committed from the hot tier")
                    .containsExactlyElementsOf(visible);
            all.sort(Comparator.comparingLong(ReadCommittedModelTest::offsetOf));
            assertThat(readUncommitted(log)).as("read_uncommitted sees all").isEqualTo(all);

            // a crash image (the files as a kill -9 would leave them, open transactions in
            // flight): recovery gives the same last stable offset and committed records
            Path crashed = Files.createTempDirectory(dir, "crashed");
            copyTree(d, crashed);
            try (TieredLog image = TieredLog.open(TopicRegistryTest.hotOnly(crashed, cfg))) {
                assertThat(image.transactions().lastStableOffset(TP))
                        .as("LSO after recovery")
                        .isEqualTo(lso);
                assertThat(readCommitted(image, random, lso))
                        .as("read_committed after recovery from a crash image")
                        .containsExactlyElementsOf(visible);
            }

            // end every transaction, then reopen: the txn index and producer state come back
            for (Producer p : producers) {
                if (!p.open.isEmpty()) {
                    short markerEpoch = p.tv >= 2 ? (short) (p.epoch + 1) : p.epoch;
                    txns.appendMarker(TP, p.pid, markerEpoch, 0, false, p.tv);
                    p.open.clear();
                }
            }
            assertThat(txns.openTransactions(TP)).isEmpty();
        }
        List<String> finalCommitted =
                committed.stream()
                        .sorted(Comparator.comparingLong(ReadCommittedModelTest::offsetOf))
                        .toList();
        try (TieredLog log = TieredLog.open(TopicRegistryTest.hotOnly(d, cfg))) {
            long hw = log.latestOffset(TP);
            assertThat(log.transactions().lastStableOffset(TP)).isEqualTo(hw);
            assertThat(readCommitted(log, random, hw))
                    .as("read_committed after a reopen, every transaction ended")
                    .containsExactlyElementsOf(finalCommitted);
        }
    }

    /**
     * The client: fetches from 0 until the last stable offset, each response handled on its own
     * with its own aborted list, as {@code CompletedFetch} does. Also checks each response's LSO
     * and that no batch at or above it is returned.
     */
    static List<String> readCommitted(TieredLog log, Random random, long lso) throws Exception {
        List<String> out = new ArrayList<>();
        long offset = 0;
        int guard = 0;
        while (offset < lso) {
            assertThat(guard++).as("the reader progresses").isLessThan(100_000);
            TierRead r =
                    EngineFixture.get(
                            log.read(
                                    TP,
                                    offset,
                                    Property.between(random, 1, 600),
                                    Isolation.READ_COMMITTED));
            assertThat(r.lastStableOffset()).isEqualTo(lso);
            assertThat(r.isEmpty()).as("data below the LSO at " + offset).isFalse();
            List<AbortedTransaction> aborted = new ArrayList<>(r.abortedTransactions());
            aborted.sort(Comparator.comparingLong(AbortedTransaction::firstOffset));
            Set<Long> abortedPids = new HashSet<>();
            int next = 0;
            for (RecordBatch b : r.toMemoryRecords().batches()) {
                assertThat(b.lastOffset()).as("nothing at or above the LSO").isLessThan(lso);
                while (next < aborted.size() && aborted.get(next).firstOffset() <= b.lastOffset()) {
                    abortedPids.add(aborted.get(next++).producerId());
                }
                if (b.isControlBatch()) {
                    Record marker = b.iterator().next();
                    if (ControlRecordType.parse(marker.key()) == ControlRecordType.ABORT) {
                        abortedPids.remove(b.producerId());
                    }
                    continue;
                }
                if (b.isTransactional() && abortedPids.contains(b.producerId())) {
                    continue;
                }
                for (Record rec : b) {
                    out.add(rec.offset() + ":" + value(rec));
                }
            }
            offset = r.nextOffset();
        }
        TierRead atLso = EngineFixture.get(log.read(TP, lso, 1 << 20, Isolation.READ_COMMITTED));
        assertThat(atLso.isEmpty()).as("a read_committed read at the LSO is empty").isTrue();
        return out;
    }

    static List<String> readUncommitted(TieredLog log) throws Exception {
        List<String> out = new ArrayList<>();
        long offset = 0;
        long hw = log.latestOffset(TP);
        while (offset < hw) {
            TierRead r =
                    EngineFixture.get(log.read(TP, offset, 1 << 20, Isolation.READ_UNCOMMITTED));
            assertThat(r.abortedTransactions()).isEmpty();
            for (RecordBatch b : r.toMemoryRecords().batches()) {
                if (!b.isControlBatch()) {
                    for (Record rec : b) {
                        out.add(rec.offset() + ":" + value(rec));
                    }
                }
            }
            offset = r.nextOffset();
        }
        return out;
    }

    @Test
    void aTransactionalBatchWithoutItsVerificationTokenIsInvalidTxnState() throws Exception {
        try (TieredLog log = TieredLog.open(TopicRegistryTest.hotOnly(dir, Map.of()))) {
            log.createTopic(TP.topic(), 1, Map.of());
            assertThatThrownBy(() -> log.append(TP, txnBatch(7, (short) 0, 0, 1, "x")))
                    .as("a transactional batch needs verification (KIP-890)")
                    .isInstanceOf(InvalidTxnStateException.class);
            TxnVerification t = log.transactions().startVerification(TP, 7, 0, (short) 0, true);
            log.append(TP, txnBatch(7, (short) 0, 0, 1, "x"), t);
            assertThat(log.transactions().openTransactions(TP))
                    .containsExactly(new OpenTransaction(7, (short) 0, 0, 1000));
            assertThat(log.offsets(TP).lastStableOffset()).isZero();
            assertThat(log.offsets(TP).highWatermark()).isEqualTo(1);
            assertThat(log.activeProducers(TP))
                    .as("DescribeProducers' view: the open transaction's start")
                    .containsExactly(new ActiveProducer(7, (short) 0, 0, 1000, -1, 0));
            log.transactions().appendMarker(TP, 7, (short) 0, 3, true, 1);
            assertThat(log.activeProducers(TP))
                    .singleElement()
                    .satisfies(
                            p -> {
                                assertThat(p.coordinatorEpoch()).isEqualTo(3);
                                assertThat(p.currentTxnStartOffset()).isEqualTo(-1);
                            });
            assertThat(log.offsets(TP).lastStableOffset()).isEqualTo(2);
        }
    }

    private static void copyTree(Path from, Path to) throws java.io.IOException {
        try (java.util.stream.Stream<Path> all = Files.walk(from)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else if (!p.getFileName().toString().equals(".lock")) {
                    Files.copy(p, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    private static long offsetOf(String rec) {
        return Long.parseLong(rec.substring(0, rec.indexOf(':')));
    }

    private static String value(Record r) {
        ByteBuffer v = r.value().duplicate();
        byte[] b = new byte[v.remaining()];
        v.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    static ByteBuffer plainBatch(String value) {
        return MemoryRecords.withRecords(
                        Compression.NONE,
                        new SimpleRecord(1000, null, value.getBytes(StandardCharsets.UTF_8)))
                .buffer();
    }

    /** A transactional batch of {@code n} records {@code prefix-i}, as a producer sends it. */
    static ByteBuffer txnBatch(long pid, short epoch, int seq, int n, String prefix) {
        ByteBuffer buf = ByteBuffer.allocate(1024 + n * 64);
        MemoryRecordsBuilder b =
                MemoryRecords.builder(
                        buf,
                        RecordBatch.MAGIC_VALUE_V2,
                        Compression.NONE,
                        TimestampType.CREATE_TIME,
                        0L,
                        RecordBatch.NO_TIMESTAMP,
                        pid,
                        epoch,
                        seq,
                        true,
                        RecordBatch.NO_PARTITION_LEADER_EPOCH);
        for (int i = 0; i < n; i++) {
            b.append(
                    new SimpleRecord(
                            1000, null, (prefix + "-" + i).getBytes(StandardCharsets.UTF_8)));
        }
        return b.build().buffer();
    }
}
