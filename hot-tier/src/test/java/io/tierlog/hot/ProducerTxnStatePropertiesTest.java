package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Property;
import io.tierlog.hot.ProducerStateException.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ProducerStateManager} against a small model of Kafka's rules (ProducerAppendInfo, 4.4's
 * marker epoch rule, KIP-890 guards), on random sequences of verifications, data batches and
 * markers; and producer snapshots: version 2 round trip, version 1 still read.
 */
class ProducerTxnStatePropertiesTest {
    @TempDir Path tmp;

    /** The model's view of one producer. */
    static final class M {
        short epoch;
        int lastSeq = -1;
        boolean anyBatch;
        boolean fresh = true;
        long txnFirst = -1;
        int coordEpoch = -1;
        VerificationGuard guard;
        int guardLowest;
        short guardEpoch;
    }

    @Test
    void agreesWithTheModel() {
        Property.forAll(
                200,
                random -> {
                    ProducerStateManager psm = new ProducerStateManager();
                    Map<Long, M> model = new HashMap<>();
                    long offset = 0;
                    for (int step = 0; step < 60; step++) {
                        long pid = random.nextInt(3);
                        M m = model.computeIfAbsent(pid, k -> new M());
                        int op = random.nextInt(10);
                        if (op < 2) {
                            short epoch = (short) (m.epoch + random.nextInt(2));
                            int seq =
                                    m.lastSeq
                                            + 1
                                            - random.nextInt(2)
                                            + (random.nextInt(8) == 0 ? 2 : 0);
                            VerificationGuard g =
                                    psm.maybeStartVerification(
                                            pid, Math.max(seq, 0), epoch, true, 0);
                            boolean ongoing = m.txnFirst >= 0 && m.epoch == epoch && !m.fresh;
                            assertThat(g == VerificationGuard.SENTINEL).isEqualTo(ongoing);
                            if (!ongoing) {
                                if (m.guard == null || epoch > m.guardEpoch) {
                                    m.guard = g;
                                    m.guardLowest = Math.max(seq, 0);
                                    m.guardEpoch = epoch;
                                } else if (epoch == m.guardEpoch) {
                                    assertThat(g).isSameAs(m.guard);
                                    m.guardLowest = Math.min(m.guardLowest, Math.max(seq, 0));
                                }
                            }
                        } else if (op < 7) {
                            boolean txn = random.nextInt(4) != 0;
                            short epoch =
                                    (short)
                                            (m.epoch
                                                    + (random.nextInt(6) == 0 ? 1 : 0)
                                                    - (random.nextInt(10) == 0 ? 1 : 0));
                            int seq =
                                    epoch != m.epoch
                                            ? (random.nextInt(4) == 0 ? 1 : 0)
                                            : m.lastSeq + 1 + (random.nextInt(8) == 0 ? 1 : 0);
                            if (m.fresh) {
                                seq = random.nextInt(3);
                            }
                            int n = 1 + random.nextInt(3);
                            VerificationGuard g =
                                    random.nextInt(5) == 0 || m.guard == null
                                            ? VerificationGuard.SENTINEL
                                            : m.guard;
                            Kind expected = expectData(m, epoch, seq, txn, g);
                            Kind got = null;
                            ProducerStateManager.Pending p = new ProducerStateManager.Pending();
                            try {
                                psm.checkAndStage(
                                        p,
                                        pid,
                                        epoch,
                                        seq,
                                        seq + n - 1,
                                        offset,
                                        offset + n - 1,
                                        5,
                                        txn,
                                        g);
                                psm.commit(p);
                            } catch (ProducerStateException e) {
                                got = e.kind();
                            }
                            assertThat(got)
                                    .as("data pid %d epoch %d seq %d txn %b", pid, epoch, seq, txn)
                                    .isEqualTo(expected);
                            if (got == null) {
                                if (m.fresh || epoch != m.epoch) {
                                    m.anyBatch = false;
                                }
                                m.fresh = false;
                                m.epoch = epoch;
                                m.lastSeq = seq + n - 1;
                                m.anyBatch = true;
                                if (txn && m.txnFirst < 0) {
                                    m.txnFirst = offset;
                                    m.guard = null;
                                }
                                offset += n;
                            }
                        } else {
                            int tv = 1 + random.nextInt(2);
                            short epoch =
                                    (short)
                                            (m.epoch
                                                    + (tv == 2 ? random.nextInt(2) : 0)
                                                    - (random.nextInt(8) == 0 ? 1 : 0));
                            int coord = Math.max(0, m.coordEpoch + random.nextInt(3) - 1);
                            Kind expected = null;
                            if (!m.fresh || m.coordEpoch >= 0) {
                                if (coord < m.coordEpoch) {
                                    expected = Kind.TRANSACTION_COORDINATOR_FENCED;
                                } else if (epoch < m.epoch
                                        || (tv >= 2 && epoch == m.epoch && m.txnFirst >= 0)) {
                                    expected = Kind.INVALID_PRODUCER_EPOCH;
                                }
                            }
                            Kind got = null;
                            try {
                                psm.checkMarker(pid, epoch, coord, tv);
                                psm.applyMarker(
                                        pid, epoch, coord, random.nextBoolean(), offset, 5, false);
                            } catch (ProducerStateException e) {
                                got = e.kind();
                            }
                            if (m.fresh && m.coordEpoch < 0 && psm.entry(pid).isEmpty()) {
                                expected = null;
                            }
                            assertThat(got)
                                    .as(
                                            "marker pid %d epoch %d coord %d tv %d",
                                            pid, epoch, coord, tv)
                                    .isEqualTo(expected);
                            if (got == null) {
                                if (epoch != m.epoch) {
                                    m.lastSeq = -1;
                                    m.anyBatch = false;
                                }
                                m.epoch = epoch;
                                m.coordEpoch = coord;
                                m.txnFirst = -1;
                                m.fresh = false;
                                m.guard = null;
                                offset++;
                            }
                        }
                        TreeMap<Long, Long> open = new TreeMap<>();
                        model.forEach(
                                (k, v) -> {
                                    if (v.txnFirst >= 0) {
                                        open.put(v.txnFirst, k);
                                    }
                                });
                        assertThat(psm.ongoingTransactions())
                                .extracting(OngoingTxn::producerId)
                                .containsExactlyElementsOf(open.values());
                        assertThat(psm.lastStableOffset(offset))
                                .isEqualTo(open.isEmpty() ? offset : open.firstKey());
                    }
                });
    }

    /** Kafka's outcome for a data batch, or null when accepted. */
    private static Kind expectData(M m, short epoch, int seq, boolean txn, VerificationGuard g) {
        boolean known = !m.fresh;
        if (known && epoch < m.epoch) {
            return Kind.INVALID_PRODUCER_EPOCH;
        }
        if (known && epoch > m.epoch && seq != 0) {
            return Kind.OUT_OF_ORDER_SEQUENCE;
        }
        if (known && epoch == m.epoch && seq != m.lastSeq + 1) {
            return Kind.OUT_OF_ORDER_SEQUENCE;
        }
        if (txn && !(m.txnFirst >= 0 && m.epoch == epoch)) {
            if (m.guard == null || g != m.guard) {
                return Kind.INVALID_TXN_STATE;
            }
            if (seq > m.guardLowest) {
                return Kind.OUT_OF_ORDER_SEQUENCE;
            }
            if (seq != 0 && known && !m.anyBatch) {
                return Kind.OUT_OF_ORDER_SEQUENCE;
            }
        }
        if (!txn && m.txnFirst >= 0) {
            return Kind.INVALID_TXN_STATE;
        }
        return null;
    }

    @Test
    void snapshotVersion2RoundTripsAndVersion1IsStillRead() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("t-0"));
        List<ProducerEntry.BatchMetadata> b =
                List.of(new ProducerEntry.BatchMetadata(0, 4, 10, 14, 777));
        List<ProducerEntry> v2 =
                List.of(
                        new ProducerEntry(1, (short) 3, b, 7, 888, 10),
                        new ProducerEntry(2, (short) 9, List.of(), 2, 999, -1));
        ProducerSnapshots.writeFile(dir, 20, v2);
        ProducerStateManager psm = new ProducerStateManager();
        assertThat(ProducerSnapshots.loadLatest(dir, 100, psm)).isEqualTo(20);
        assertThat(new ArrayList<>(psm.entries())).containsExactlyInAnyOrderElementsOf(v2);
        assertThat(psm.ongoingTransactions())
                .containsExactly(new OngoingTxn(1, (short) 3, 10, 888));
        assertThat(psm.lastStableOffset(20)).isEqualTo(10);

        Files.delete(dir.resolve(LogSegment.fileName(20) + ProducerSnapshots.SUFFIX));
        ProducerSnapshots.writeFile(
                dir, 30, List.of(new ProducerEntry(1, (short) 3, b)), (short) 1);
        ProducerStateManager old = new ProducerStateManager();
        assertThat(ProducerSnapshots.loadLatest(dir, 100, old)).isEqualTo(30);
        ProducerEntry e = old.entry(1).orElseThrow();
        assertThat(e.coordinatorEpoch()).isEqualTo(-1);
        assertThat(e.currentTxnFirstOffset()).isEqualTo(-1);
        assertThat(e.lastTimestamp()).isEqualTo(777); // from its last batch
        assertThat(e.batches()).isEqualTo(b);
        assertThat(old.ongoingTransactions()).isEmpty();
    }
}
