package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Property;
import io.tierlog.hot.AbortedTxn;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.PartitionLog;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * read_committed from the cold tier needs no hot data: for random histories of interleaved
 * transactions (commits, aborts, plain batches), a read_committed client (Kafka's {@code
 * CompletedFetch} algorithm) reading every offset with every fetch size sees the same records from
 * {@link ColdReader#read}'s aborted list as from the hot tier's {@code .txnindex} ({@link
 * PartitionLog#abortedTransactions}, the reference), and exactly the committed ones.
 */
class ColdAbortedTransactionsIT {
    @TempDir Path dir;
    EngineFixture fx;
    TieredLog log;

    @BeforeEach
    void setUp() throws Exception {
        fx = new EngineFixture(dir);
        log = fx.open(Map.of("local.retention.bytes", "1", "segment.bytes", "1024"));
    }

    @AfterEach
    void tearDown() throws Exception {
        if (log != null) {
            log.close();
        }
        if (fx != null) {
            fx.close();
        }
    }

    // The Transactions facade belongs to the engine's slice; markers go through the hot log here.
    private static Object field(Object o, String name) throws Exception {
        Field f = TieredLog.class.getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }

    /** One random history; returns the values a read_committed reader must see, in order. */
    private static List<String> write(PartitionLog hot, Random rnd) throws Exception {
        List<String> committed = new ArrayList<>();
        Map<Long, List<String>> open = new HashMap<>();
        Map<Long, Integer> sequences = new HashMap<>();
        int n = 0;
        int steps = 60 + rnd.nextInt(60);
        for (int step = 0; step < steps || !open.isEmpty(); step++) {
            int what = step >= steps ? 2 : rnd.nextInt(6);
            long pid = 100 + rnd.nextInt(4);
            if (what == 0) {
                List<String> values = new ArrayList<>();
                for (int i = 1 + rnd.nextInt(3); i > 0; i--) {
                    values.add("v" + n++);
                }
                hot.append(batch(-1, -1, false, values));
                committed.addAll(values);
            } else if (what <= 1 || (what <= 3 && !open.containsKey(pid))) {
                List<String> values = new ArrayList<>();
                for (int i = 1 + rnd.nextInt(4); i > 0; i--) {
                    values.add("v" + n++);
                }
                int seq = sequences.getOrDefault(pid, 0);
                // KIP-890: a transaction's first batch here needs the partition's guard
                io.tierlog.hot.VerificationGuard guard =
                        hot.maybeStartTxnVerification(pid, seq, (short) 0, false);
                hot.append(
                        batch(pid, seq, true, values),
                        PartitionLog.NO_PARTITION_LEADER_EPOCH,
                        guard);
                sequences.put(pid, seq + values.size());
                open.computeIfAbsent(pid, p -> new ArrayList<>()).addAll(values);
            } else if (!open.isEmpty()) {
                long ending = new ArrayList<>(open.keySet()).get(rnd.nextInt(open.size()));
                boolean commit = rnd.nextBoolean();
                hot.appendEndTxnMarker(ending, (short) 0, 0, commit, 1);
                List<String> values = open.remove(ending);
                if (commit) {
                    committed.addAll(values);
                }
            }
        }
        return sortedByOffset(committed);
    }

    private static List<String> sortedByOffset(List<String> values) {
        // values are numbered in append order, which is offset order
        List<String> out = new ArrayList<>(values);
        out.sort(Comparator.comparingInt(v -> Integer.parseInt(v.substring(1))));
        return out;
    }

    private static ByteBuffer batch(long pid, int seq, boolean txn, List<String> values) {
        ByteBuffer buf = ByteBuffer.allocate(256 + values.size() * 64);
        MemoryRecordsBuilder b =
                new MemoryRecordsBuilder(
                        buf,
                        RecordBatch.MAGIC_VALUE_V2,
                        Compression.NONE,
                        TimestampType.CREATE_TIME,
                        0,
                        RecordBatch.NO_TIMESTAMP,
                        pid,
                        pid < 0 ? RecordBatch.NO_PRODUCER_EPOCH : 0,
                        pid < 0 ? RecordBatch.NO_SEQUENCE : seq,
                        txn,
                        false,
                        RecordBatch.NO_PARTITION_LEADER_EPOCH,
                        buf.capacity());
        for (String v : values) {
            b.append(1_700_000_000_000L, null, v.getBytes(StandardCharsets.UTF_8));
        }
        return b.build().buffer();
    }

    /** What a read_committed client keeps of one fetch response (Kafka's CompletedFetch). */
    static List<String> clientKeeps(MemoryRecords records, List<AbortedTransaction> aborted) {
        ArrayDeque<AbortedTransaction> queue = new ArrayDeque<>();
        aborted.stream()
                .sorted(Comparator.comparingLong(AbortedTransaction::firstOffset))
                .forEach(queue::add);
        Set<Long> abortedPids = new HashSet<>();
        List<String> out = new ArrayList<>();
        for (RecordBatch b : records.batches()) {
            if (b.hasProducerId()) {
                while (!queue.isEmpty() && queue.peek().firstOffset() <= b.lastOffset()) {
                    abortedPids.add(queue.poll().producerId());
                }
                if (b.isControlBatch()) {
                    Record r = b.iterator().next();
                    if (ControlRecordType.parse(r.key()) == ControlRecordType.ABORT) {
                        abortedPids.remove(b.producerId());
                    }
                    continue;
                }
                if (b.isTransactional() && abortedPids.contains(b.producerId())) {
                    continue;
                }
            }
            if (b.isControlBatch()) {
                continue;
            }
            for (Record r : b) {
                out.add(StandardCharsets.UTF_8.decode(r.value()).toString());
            }
        }
        return out;
    }

    @Test
    void coldAbortedListsGiveAReadCommittedClientTheSameRecordsAsTheHotTxnIndex() throws Exception {
        LogManager logs = (LogManager) field(log, "logs");
        ColdReader cold = (ColdReader) field(log, "coldReader");
        int[] round = {0};
        Property.forAll(
                3,
                rnd -> {
                    TopicPartition tp = new TopicPartition("txn" + round[0]++, 0);
                    log.createTopic(tp.topic(), 1, Map.of());
                    PartitionLog hot = logs.partition(tp).orElseThrow();
                    List<String> expected = write(hot, rnd);
                    long end = hot.logEndOffset();
                    assertThat(hot.lastStableOffset()).isEqualTo(end);
                    int[] sizes = {1, 300, 2000, 1 << 20};
                    // the hot reference: every start offset, every fetch size
                    Map<String, List<String>> hotSeen = new HashMap<>();
                    for (int maxBytes : sizes) {
                        for (long from = 0; from < end; from++) {
                            TierRead r = EngineFixture.get(log.read(tp, from, maxBytes));
                            assertThat(r.tier()).isEqualTo(TierRead.Tier.HOT);
                            List<AbortedTransaction> list = new ArrayList<>();
                            for (AbortedTxn a : hot.abortedTransactions(from, r.nextOffset())) {
                                list.add(new AbortedTransaction(a.producerId(), a.firstOffset()));
                            }
                            hotSeen.put(
                                    from + "/" + maxBytes, clientKeeps(r.toMemoryRecords(), list));
                        }
                    }
                    assertThat(
                                    readAll(
                                            tp,
                                            1 << 20,
                                            (from, mb) -> {
                                                TierRead r =
                                                        EngineFixture.get(log.read(tp, from, mb));
                                                List<AbortedTransaction> list = new ArrayList<>();
                                                for (AbortedTxn a :
                                                        hot.abortedTransactions(
                                                                from, r.nextOffset())) {
                                                    list.add(
                                                            new AbortedTransaction(
                                                                    a.producerId(),
                                                                    a.firstOffset()));
                                                }
                                                return new Fetched(
                                                        r.toMemoryRecords(), list, r.nextOffset());
                                            },
                                            end))
                            .as("hot read_committed, sequentially")
                            .isEqualTo(expected);

                    log.maintain();
                    assertThat(log.offsets(tp).hotLogStartOffset())
                            .as("offloaded and deleted locally, but for the active segment")
                            .isGreaterThan(end / 2);
                    long hotStart = log.offsets(tp).hotLogStartOffset();
                    long hw = hot.highWatermark();
                    for (int maxBytes : sizes) {
                        for (long from = 0; from < hotStart; from++) {
                            TierRead.Cold c =
                                    cold.read(tp, from, maxBytes, hotStart, hw, 0)
                                            .get(60, TimeUnit.SECONDS);
                            List<String> seen = clientKeeps(c.records(), c.abortedTransactions());
                            List<String> reference = hotSeen.get(from + "/" + maxBytes);
                            int common = Math.min(seen.size(), reference.size());
                            assertThat(seen.subList(0, common))
                                    .as("from %d, %d bytes", from, maxBytes)
                                    .isEqualTo(reference.subList(0, common));
                        }
                    }
                    assertThat(
                                    readAll(
                                            tp,
                                            1 << 20,
                                            (from, mb) -> {
                                                if (from >= hotStart) {
                                                    TierRead r =
                                                            EngineFixture.get(
                                                                    log.read(tp, from, mb));
                                                    List<AbortedTransaction> list =
                                                            new ArrayList<>();
                                                    for (AbortedTxn a :
                                                            hot.abortedTransactions(
                                                                    from, r.nextOffset())) {
                                                        list.add(
                                                                new AbortedTransaction(
                                                                        a.producerId(),
                                                                        a.firstOffset()));
                                                    }
                                                    return new Fetched(
                                                            r.toMemoryRecords(),
                                                            list,
                                                            r.nextOffset());
                                                }
                                                TierRead.Cold c =
                                                        cold.read(tp, from, mb, hotStart, hw, 0)
                                                                .get(60, TimeUnit.SECONDS);
                                                return new Fetched(
                                                        c.records(),
                                                        c.abortedTransactions(),
                                                        c.nextOffset());
                                            },
                                            end))
                            .as("read_committed from cold then hot, sequentially")
                            .isEqualTo(expected);
                });
    }

    record Fetched(MemoryRecords records, List<AbortedTransaction> aborted, long next) {}

    interface Fetch {
        Fetched at(long from, int maxBytes) throws Exception;
    }

    private static List<String> readAll(TopicPartition tp, int maxBytes, Fetch fetch, long end)
            throws Exception {
        List<String> out = new ArrayList<>();
        long next = 0;
        while (next < end) {
            Fetched f = fetch.at(next, maxBytes);
            out.addAll(clientKeeps(f.records(), f.aborted()));
            assertThat(f.next()).isGreaterThan(next);
            next = f.next();
        }
        return out;
    }
}
