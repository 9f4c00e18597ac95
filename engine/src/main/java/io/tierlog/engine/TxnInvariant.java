package io.tierlog.engine;

import io.tierlog.catalog.ColdObject;
import io.tierlog.hot.ReadOnlyLogDir;
import io.tierlog.hot.SegmentInfo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * The {@link Verifier}'s check of invariant 10 (docs/invariants.md: transactional outcomes are
 * exact in both tiers) that needs no object read: no cold object reaches the last stable offset.
 * Stateless.
 */
final class TxnInvariant {
    private TxnInvariant() {}

    /**
     * Every cold object lies below the last stable offset: offload stops below the LSO and the LSO
     * never moves back, so an object reaching it may hold data of a transaction still open, which a
     * {@code read_committed} reader of the cold tier would then see. The LSO is scanned from the
     * hot tier after the catalog was read ({@code objects}), so that an object committed meanwhile
     * is judged against an LSO at least as recent as its commit.
     */
    static void checkColdBelowLastStableOffset(
            ReadOnlyLogDir hot,
            TopicPartition tp,
            List<SegmentInfo> segs,
            List<ColdObject> objects,
            List<Violation> out) {
        if (segs.isEmpty() || objects.isEmpty()) {
            return;
        }
        long lso;
        try {
            lso = hot.lastStableOffset(tp, segs.get(0).baseOffset());
        } catch (IOException | UncheckedIOException e) {
            return; // unreadable hot segments are the hot checks' finding
        }
        ColdObject last = objects.get(objects.size() - 1);
        if (last.lastOffset() >= lso) {
            out.add(
                    new Violation(
                            tp,
                            Violation.Kind.OPEN_TRANSACTION_IN_COLD,
                            last.key()
                                    + " ("
                                    + last.describeRange()
                                    + ") reaches the last stable offset "
                                    + lso
                                    + ": it may hold records of a transaction still open"));
        }
    }
}
