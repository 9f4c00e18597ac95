package io.tierlog.itests.txn;

import io.tierlog.common.testing.Property;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * A seeded sequence of transactions over the partitions of one topic, and what it implies: the
 * offset every record and every control batch takes (one offset per record, one commit or abort
 * marker per partition a transaction wrote to, as Kafka writes them), hence the records a {@code
 * read_committed} and a {@code read_uncommitted} consumer must see and the end offsets. The model
 * holds as long as every record of a transaction reaches the log before its end (the runner flushes
 * before committing or aborting; an abort would otherwise drop buffered records in the client).
 * Immutable, thread-safe.
 */
record TxnScript(int partitions, List<Txn> txns) {
    /** One record: partition and value (no key). */
    record Rec(int partition, String value) {}

    /** One transaction, committed or aborted, and its records in send order. */
    record Txn(int id, boolean commit, List<Rec> records) {
        Set<Integer> partitions() {
            Set<Integer> ps = new HashSet<>();
            records.forEach(r -> ps.add(r.partition()));
            return ps;
        }
    }

    /** A record as a consumer sees it: where, at which offset, with which value. */
    record Seen(int partition, long offset, String value) {}

    /**
     * {@code count} transactions over {@code partitions}: each writes 1 to 25 records to 1 to 4
     * partitions, two in three commit; values of 5 to 300 bytes naming the transaction and record.
     */
    static TxnScript random(Random random, int partitions, int count, String prefix) {
        List<Txn> txns = new ArrayList<>();
        for (int t = 0; t < count; t++) {
            int width = Property.between(random, 1, Math.min(4, partitions));
            List<Integer> ps = new ArrayList<>();
            while (ps.size() < width) {
                int p = random.nextInt(partitions);
                if (!ps.contains(p)) {
                    ps.add(p);
                }
            }
            int n = Property.between(random, 1, 25);
            List<Rec> recs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                recs.add(
                        new Rec(
                                ps.get(random.nextInt(ps.size())),
                                value(prefix + "-t" + t + "-r" + i, random)));
            }
            txns.add(new Txn(t, random.nextInt(3) != 0, List.copyOf(recs)));
        }
        return new TxnScript(partitions, List.copyOf(txns));
    }

    private static String value(String name, Random random) {
        StringBuilder b = new StringBuilder(name).append(':');
        int pad = Property.between(random, 5, 300);
        for (int i = 0; i < pad; i++) {
            b.append((char) ('a' + random.nextInt(26)));
        }
        return b.toString();
    }

    /** Offsets every partition starts at before this script (what was written before it). */
    static Map<Integer, Long> zeros(int partitions) {
        Map<Integer, Long> m = new TreeMap<>();
        for (int p = 0; p < partitions; p++) {
            m.put(p, 0L);
        }
        return m;
    }

    /** What the script implies, starting from offsets {@code start} per partition. */
    Expected expected(Map<Integer, Long> start) {
        Map<Integer, Long> next = new TreeMap<>(start);
        Map<Integer, List<Seen>> committed = new TreeMap<>();
        Map<Integer, List<Seen>> all = new TreeMap<>();
        for (int p = 0; p < partitions; p++) {
            committed.put(p, new ArrayList<>());
            all.put(p, new ArrayList<>());
        }
        for (Txn t : txns) {
            for (Rec r : t.records()) {
                long offset = next.merge(r.partition(), 1L, Long::sum) - 1;
                Seen s = new Seen(r.partition(), offset, r.value());
                all.get(r.partition()).add(s);
                if (t.commit()) {
                    committed.get(r.partition()).add(s);
                }
            }
            for (int p : t.partitions()) {
                next.merge(p, 1L, Long::sum); // the control batch
            }
        }
        return new Expected(committed, all, next);
    }

    /** The model's answer: records per partition for each isolation, and the end offsets. */
    record Expected(
            Map<Integer, List<Seen>> committed,
            Map<Integer, List<Seen>> all,
            Map<Integer, Long> endOffsets) {}
}
