package io.tierlog.itests.txn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the kill campaign's producer did, per transaction, and the checker of what a read_committed
 * consumer may see afterwards. A transaction's state is set before the call that may change it and
 * after its answer, so a kill leaves it {@link State#OPEN} (never committed: must be invisible),
 * {@link State#COMMITTING} (commit sent, no answer: all or nothing across its partitions), {@link
 * State#ABORTING} or {@link State#ABORTED} (invisible) or {@link State#COMMITTED} (acked: all of it
 * visible, in order). Value format: {@code c<cycle>-t<txn>-p<partition>-i<index>:<padding>}.
 * Thread-safe (the producer thread writes, the test thread reads after it stopped).
 */
final class TxnLedger {
    enum State {
        OPEN,
        COMMITTING,
        COMMITTED,
        ABORTING,
        ABORTED
    }

    /** One transaction: its id and its records per partition in send order. */
    static final class Entry {
        final String id;
        final Map<Integer, List<String>> records = new TreeMap<>();
        volatile State state = State.OPEN;

        Entry(String id) {
            this.id = id;
        }

        int size() {
            return records.values().stream().mapToInt(List::size).sum();
        }
    }

    private final List<Entry> entries = new ArrayList<>();

    synchronized Entry begin(int cycle, int txn) {
        Entry e = new Entry("c" + cycle + "-t" + txn);
        entries.add(e);
        return e;
    }

    static String value(Entry e, int partition, int index, String pad) {
        return e.id + "-p" + partition + "-i" + index + ":" + pad;
    }

    private static String txnOf(String value) {
        int p = value.indexOf("-p");
        return value.substring(0, p);
    }

    /** The state of the transaction that wrote {@code value}, or null if none did. */
    synchronized State stateOf(String value) {
        String txn = txnOf(value);
        return entries.stream()
                .filter(e -> e.id.equals(txn))
                .map(e -> e.state)
                .findFirst()
                .orElse(null);
    }

    synchronized Map<State, Integer> counts() {
        Map<State, Integer> m = new EnumMap<>(State.class);
        entries.forEach(e -> m.merge(e.state, 1, Integer::sum));
        return m;
    }

    /**
     * Checks read_committed's records per partition (values in offset order) against the ledger: no
     * record outside it, none twice; acked commits fully visible; open, aborting and aborted
     * transactions invisible; a commit without answer all or nothing; per partition, the visible
     * transactions' records in ledger order (transactions ran one after another).
     */
    synchronized void check(Map<Integer, List<String>> readCommitted) {
        Map<String, Entry> byId = new HashMap<>();
        entries.forEach(e -> byId.put(e.id, e));
        Map<String, Integer> visible = new HashMap<>();
        Set<String> seen = new HashSet<>();
        readCommitted.forEach(
                (p, values) -> {
                    for (String v : values) {
                        assertThat(seen.add(v)).as("record %s read twice", head(v)).isTrue();
                        String txn = txnOf(v);
                        assertThat(byId).as("record %s is in the ledger", head(v)).containsKey(txn);
                        visible.merge(txn, 1, Integer::sum);
                    }
                });
        Set<String> visibleTxns = new HashSet<>();
        for (Entry e : entries) {
            int n = visible.getOrDefault(e.id, 0);
            switch (e.state) {
                case COMMITTED ->
                        assertThat(n)
                                .as("acked commit %s: every record visible to read_committed", e.id)
                                .isEqualTo(e.size());
                case OPEN, ABORTING, ABORTED ->
                        assertThat(n)
                                .as(
                                        "%s transaction %s: nothing visible to read_committed",
                                        e.state, e.id)
                                .isZero();
                case COMMITTING ->
                        assertThat(n)
                                .as("unanswered commit %s: all (%d) or nothing", e.id, e.size())
                                .isIn(0, e.size());
            }
            if (n > 0) {
                visibleTxns.add(e.id);
            }
        }
        readCommitted.forEach(
                (p, values) -> {
                    List<String> expected = new ArrayList<>();
                    for (Entry e : entries) {
                        if (visibleTxns.contains(e.id)) {
                            expected.addAll(e.records.getOrDefault(p, List.of()));
                        }
                    }
                    assertThat(values.stream().map(TxnLedger::head).toList())
                            .as("partition %d: visible transactions' records in ledger order", p)
                            .containsExactlyElementsOf(
                                    expected.stream().map(TxnLedger::head).toList());
                });
    }

    private static String head(String value) {
        int colon = value.indexOf(':');
        return colon < 0 ? value : value.substring(0, colon);
    }
}
