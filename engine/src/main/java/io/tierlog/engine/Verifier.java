package io.tierlog.engine;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.CatalogException;
import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.PartitionState;
import io.tierlog.catalog.TopicRecord;
import io.tierlog.cold.ObjectFooter;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.ObjectKeys;
import io.tierlog.cold.ObjectNotFoundException;
import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.ParquetLogReader;
import io.tierlog.hot.ReadOnlyLogDir;
import io.tierlog.hot.SegmentInfo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Checks the invariants of docs/invariants.md across both tiers and reports every violation found
 * (it never stops at the first and never repairs anything):
 *
 * <ul>
 *   <li>cold objects of each partition are contiguous (no gap, no overlap) and agree with the
 *       partition's cold log start and high watermark, and each key names its offsets;
 *   <li>no offset between the cold high watermark and the hot log start is missing from both;
 *   <li>every catalogued object exists in the store with the catalogued size, its Parquet footer
 *       names the catalogued offsets, and its first batch (deep: every batch, records ascending
 *       within the object's range) reads back; a compacted object (its footer says so) may end
 *       before its last offset, since compaction removed records there;
 *   <li>no object a compaction retired is still committed (retired objects themselves are expected
 *       in the bucket until the sweeper deletes them: see {@link CatalogAudit});
 *   <li>where both tiers hold offsets, they hold the same records (first batch; deep: all), field
 *       by field: offsets, timestamps, key, value, headers, producer fields, batch boundaries; not
 *       for a topic with {@code cleanup.policy} compact, whose tiers are cleaned apart;
 *   <li>every cold object lies below the partition's last stable offset (no record of an open
 *       transaction in the cold tier: invariant 10);
 *   <li>deep: every hot batch passes its checks (length, magic, CRC-32C, contiguous offsets); a
 *       corrupt one is named by segment file, byte position and offset.
 * </ul>
 *
 * <p>The hot tier is read through a {@link ReadOnlyLogDir}, the store only with HEAD and ranged
 * GET: nothing is written, and a server may have the data dir open meanwhile.
 *
 * <p>Thread-safe (stateless between calls).
 */
final class Verifier {
    private static final int READ_BYTES = 1 << 20;

    private final Catalog catalog;
    private final ObjectStore store;
    private final ReadOnlyLogDir hot;
    private java.util.function.BiConsumer<TopicPartition, HotDamage> onHotDamage = (tp, d) -> {};
    private java.util.function.Predicate<String> compacted = t -> false;

    /** Rebuilds values stored once (format 3 one-copy rows); null: such rows are unreadable. */
    private io.tierlog.common.typed.ValueRebuilder rebuilder;

    /**
     * A corrupt range of a hot segment found by a deep check: offsets {@code [from, to)} whose hot
     * bytes are not to be trusted.
     */
    record HotDamage(long from, long to, String description) {}

    Verifier(Catalog catalog, ObjectStore store, ReadOnlyLogDir hot) {
        this.catalog = catalog;
        this.store = store;
        this.hot = hot;
    }

    List<Violation> verify(boolean deep) {
        List<Violation> out = new ArrayList<>();
        Set<String> retired = new HashSet<>();
        try {
            catalog.retiredObjects(Long.MAX_VALUE).forEach(r -> retired.add(r.key()));
        } catch (CatalogException e) {
            out.add(v(null, Violation.Kind.COLD_NOT_CONTIGUOUS, "catalog unreadable: " + e));
        }
        for (TopicRecord t : catalog.topics()) {
            boolean compact =
                    t.configs().getOrDefault("cleanup.policy", "delete").contains("compact")
                            || compacted.test(t.name());
            for (int p = 0; p < t.partitions(); p++) {
                verifyPartition(new TopicPartition(t.name(), p), deep, compact, retired, out);
            }
        }
        return out;
    }

    private void verifyPartition(
            TopicPartition tp,
            boolean deep,
            boolean compactTopic,
            Set<String> retired,
            List<Violation> out) {
        // Hot first: local retention only deletes below the cold high watermark read afterwards.
        List<SegmentInfo> segs = hot.segments(tp);
        List<ColdObject> objects;
        PartitionState state;
        try {
            objects = catalog.objects(tp.topic(), tp.partition());
            state = catalog.partitionState(tp.topic(), tp.partition());
        } catch (CatalogException e) {
            out.add(v(tp, Violation.Kind.COLD_NOT_CONTIGUOUS, "catalog unreadable: " + e));
            return;
        }
        checkContiguity(tp, objects, state, out);
        TxnInvariant.checkColdBelowLastStableOffset(hot, tp, segs, objects, out);
        if (deep) {
            checkHotBatches(tp, segs, state, compactTopic, out);
        }
        for (ColdObject o : objects) {
            if (retired.contains(o.key())) {
                out.add(
                        v(
                                tp,
                                Violation.Kind.RETIRED_STILL_REFERENCED,
                                o.key()
                                        + " ("
                                        + o.describeRange()
                                        + ") is committed but also retired by a compaction: the"
                                        + " sweeper will delete it"));
            }
            checkObject(tp, o, deep, compactTopic, out);
        }
        if (!segs.isEmpty() && !objects.isEmpty()) {
            long hotStart = segs.get(0).baseOffset();
            // offsets below the log start were deleted on purpose (DeleteRecords)
            long held = Math.max(state.coldHighWatermark(), state.logStartOffset());
            if (held < hotStart) {
                out.add(
                        v(
                                tp,
                                Violation.Kind.GAP_BETWEEN_TIERS,
                                "offsets [" + held + ", " + hotStart + ") are in neither tier"));
            }
            if (!compactTopic) {
                compareOverlap(tp, segs, objects, deep, out);
            }
        }
    }

    private void checkContiguity(
            TopicPartition tp,
            List<ColdObject> objects,
            PartitionState state,
            List<Violation> out) {
        ColdObject prev = null;
        for (ColdObject o : objects) {
            if (o.firstOffset() > o.lastOffset()) {
                out.add(v(tp, Violation.Kind.COLD_NOT_CONTIGUOUS, "empty range in " + o));
            }
            if (prev != null && o.firstOffset() != prev.lastOffset() + 1) {
                out.add(
                        v(
                                tp,
                                Violation.Kind.COLD_NOT_CONTIGUOUS,
                                (o.firstOffset() > prev.lastOffset() + 1 ? "gap" : "overlap")
                                        + " between "
                                        + prev.key()
                                        + " (ends at "
                                        + prev.lastOffset()
                                        + ") and "
                                        + o.key()
                                        + " (starts at "
                                        + o.firstOffset()
                                        + ")"));
            }
            Optional<ObjectKeys.ParsedKey> k = ObjectKeys.parse(o.key());
            if (k.isPresent()
                    && (k.get().firstOffset() != o.firstOffset()
                            || k.get().lastOffset() != o.lastOffset()
                            || k.get().partition() != tp.partition()
                            || !k.get().topic().equals(tp.topic()))) {
                out.add(
                        v(
                                tp,
                                Violation.Kind.COLD_NOT_CONTIGUOUS,
                                "catalog says ["
                                        + o.firstOffset()
                                        + ", "
                                        + o.lastOffset()
                                        + "] but the key names another range: "
                                        + o.key()));
            }
            prev = o;
        }
        if (!objects.isEmpty()) {
            long first = objects.get(0).firstOffset();
            long end = objects.get(objects.size() - 1).lastOffset() + 1;
            if (state.coldLogStartOffset() != first || state.coldHighWatermark() != end) {
                out.add(
                        v(
                                tp,
                                Violation.Kind.COLD_NOT_CONTIGUOUS,
                                "partition state ["
                                        + state.coldLogStartOffset()
                                        + ", "
                                        + state.coldHighWatermark()
                                        + ") disagrees with its objects ["
                                        + first
                                        + ", "
                                        + end
                                        + ")"));
            }
        }
    }

    private void checkObject(
            TopicPartition tp,
            ColdObject o,
            boolean deep,
            boolean compactTopic,
            List<Violation> out) {
        try {
            ObjectInfo info = store.head(o.key());
            if (info.size() != o.sizeInBytes()) {
                out.add(
                        v(
                                tp,
                                Violation.Kind.OBJECT_MISSING,
                                o.key()
                                        + " has "
                                        + info.size()
                                        + " bytes, catalog says "
                                        + o.sizeInBytes()));
                return;
            }
        } catch (ObjectNotFoundException e) {
            out.add(v(tp, Violation.Kind.OBJECT_MISSING, o.key() + " is not in the store"));
            return;
        } catch (IOException e) {
            out.add(v(tp, Violation.Kind.OBJECT_MISSING, o.key() + ": store unreachable: " + e));
            return;
        }
        try {
            ParquetLogReader r = new ParquetLogReader(store, o.key(), o.sizeInBytes(), rebuilder);
            // an offloaded segment the hot cleaner cleaned starts at its base offset (the cold high
            // watermark), its first batch later: the records in between were compacted away
            boolean startsLate = compactTopic && r.firstOffset() > o.firstOffset();
            if ((r.firstOffset() != o.firstOffset() && !startsLate)
                    || r.lastOffset() != o.lastOffset()) {
                out.add(
                        v(
                                tp,
                                Violation.Kind.OBJECT_UNREADABLE,
                                o.key()
                                        + " holds ["
                                        + r.firstOffset()
                                        + ", "
                                        + r.lastOffset()
                                        + "], catalog says ["
                                        + o.firstOffset()
                                        + ", "
                                        + o.lastOffset()
                                        + "]"));
                return;
            }
            boolean compacted =
                    (deep || o.recordCount() == 0)
                            && ObjectFooter.read(store, o.key(), o.sizeInBytes()).compacted();
            if (compacted && o.recordCount() == 0) {
                return; // a compaction removed every record of the run: nothing to read back
            }
            long offset = o.firstOffset();
            long prevLast = o.firstOffset() - 1;
            do {
                MemoryRecords recs = r.read(offset, deep ? READ_BYTES : 1);
                long before = offset;
                for (RecordBatch b : recs.batches()) {
                    b.ensureValid();
                    if (b.baseOffset() <= prevLast && prevLast >= o.firstOffset()) {
                        out.add(
                                v(
                                        tp,
                                        Violation.Kind.OBJECT_UNREADABLE,
                                        o.key() + ": batches overlap at " + b.baseOffset()));
                        return;
                    }
                    if (deep) {
                        Optional<String> bad = outOfOrder(b, o, prevLast);
                        if (bad.isPresent()) {
                            out.add(
                                    v(
                                            tp,
                                            Violation.Kind.OBJECT_UNREADABLE,
                                            o.key()
                                                    + (compacted ? " (compacted)" : "")
                                                    + ": "
                                                    + bad.get()));
                            return;
                        }
                    }
                    prevLast = b.lastOffset();
                    offset = b.lastOffset() + 1;
                }
                if (offset == before) {
                    if (compacted && offset > o.firstOffset()) {
                        break; // compaction removed the records at the end of its range
                    }
                    out.add(
                            v(
                                    tp,
                                    Violation.Kind.OBJECT_UNREADABLE,
                                    o.key() + ": no batch at offset " + offset));
                    return;
                }
            } while (deep && offset <= o.lastOffset());
            if (deep && prevLast != o.lastOffset() && !(compacted && prevLast < o.lastOffset())) {
                out.add(
                        v(
                                tp,
                                Violation.Kind.OBJECT_UNREADABLE,
                                o.key()
                                        + " ends at "
                                        + prevLast
                                        + ", catalog says "
                                        + o.lastOffset()));
            }
        } catch (IOException | RuntimeException e) {
            out.add(v(tp, Violation.Kind.OBJECT_UNREADABLE, o.key() + ": " + e));
        }
    }

    /**
     * Why {@code b} breaks the order of object {@code o} (records ascending within the batch's and
     * the object's range, after {@code prevLast}), if it does.
     */
    private static Optional<String> outOfOrder(RecordBatch b, ColdObject o, long prevLast) {
        if (b.baseOffset() < o.firstOffset() || b.lastOffset() > o.lastOffset()) {
            return Optional.of(
                    "batch "
                            + b.baseOffset()
                            + ".."
                            + b.lastOffset()
                            + " lies outside the object's range "
                            + o.firstOffset()
                            + ".."
                            + o.lastOffset());
        }
        long prev = Math.max(prevLast, b.baseOffset() - 1);
        for (Record rec : b) {
            if (rec.offset() <= prev || rec.offset() > b.lastOffset()) {
                return Optional.of(
                        "record at offset "
                                + rec.offset()
                                + " is not ascending within its batch "
                                + b.baseOffset()
                                + ".."
                                + b.lastOffset()
                                + " (previous "
                                + prev
                                + ")");
            }
            prev = rec.offset();
        }
        return Optional.empty();
    }

    private void compareOverlap(
            TopicPartition tp,
            List<SegmentInfo> segs,
            List<ColdObject> objects,
            boolean deep,
            List<Violation> out) {
        long from = Math.max(segs.get(0).baseOffset(), objects.get(0).firstOffset());
        long to =
                Math.min(
                        segs.get(segs.size() - 1).nextOffset(),
                        objects.get(objects.size() - 1).lastOffset() + 1);
        long offset = from;
        ColdObject obj = null;
        Iterator<? extends RecordBatch> c = java.util.Collections.emptyIterator();
        try {
            for (SegmentInfo seg : segs) {
                if (seg.nextOffset() <= offset) {
                    continue;
                }
                Iterator<RecordBatch> h;
                try {
                    h = hot.batchesFrom(seg, offset);
                } catch (NoSuchFileException e) {
                    continue; // deleted by local retention meanwhile: the cold tier holds it
                }
                while (h.hasNext() && offset < to) {
                    RecordBatch hb = h.next();
                    if (hb.lastOffset() < offset) {
                        continue;
                    }
                    if (!c.hasNext() || hb.baseOffset() > obj.lastOffset()) {
                        obj = objectHolding(objects, hb.baseOffset());
                        if (obj == null) {
                            return; // reported as a contiguity violation
                        }
                        c =
                                new ParquetLogReader(store, obj.key(), obj.sizeInBytes(), rebuilder)
                                        .read(hb.baseOffset(), deep ? READ_BYTES : 1)
                                        .batches()
                                        .iterator();
                        if (!c.hasNext()) {
                            out.add(
                                    v(
                                            tp,
                                            Violation.Kind.TIERS_DISAGREE,
                                            "hot batch at "
                                                    + hb.baseOffset()
                                                    + " has no cold batch in "
                                                    + obj.key()));
                            return;
                        }
                    }
                    Optional<String> diff = diff(hb, c.next());
                    if (diff.isPresent()) {
                        out.add(
                                v(
                                        tp,
                                        Violation.Kind.TIERS_DISAGREE,
                                        "batch at "
                                                + hb.baseOffset()
                                                + " ("
                                                + obj.key()
                                                + "): "
                                                + diff.get()));
                        return;
                    }
                    if (!deep) {
                        return;
                    }
                    offset = hb.lastOffset() + 1;
                }
                if (offset >= to) {
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof UncheckedIOException u
                    && u.getCause() instanceof NoSuchFileException) {
                return;
            }
            out.add(
                    v(
                            tp,
                            Violation.Kind.TIERS_DISAGREE,
                            "cannot compare tiers at offset " + offset + ": " + e));
        }
    }

    /**
     * The effective {@code cleanup.policy} of a topic includes compact (broker defaults included,
     * which the catalog's topic overrides do not show): its hot segments may have offset gaps.
     */
    /**
     * Reads values stored once (typed only) through {@code r}: every read of them rebuilds the
     * bytes and checks their CRC-32C, so a value that does not rebuild to the bytes written makes
     * its object {@code OBJECT_UNREADABLE}.
     */
    Verifier rebuilder(io.tierlog.common.typed.ValueRebuilder r) {
        this.rebuilder = r;
        return this;
    }

    Verifier compactedTopics(java.util.function.Predicate<String> isCompacted) {
        this.compacted = isCompacted;
        return this;
    }

    /** Also tells {@code listener} of each corrupt hot range a deep check finds. */
    Verifier onHotDamage(java.util.function.BiConsumer<TopicPartition, HotDamage> listener) {
        this.onHotDamage = listener;
        return this;
    }

    /**
     * Deep check of the hot tier: reads every batch of every segment and reports the first invalid
     * one of each segment with its file, byte position and offset, and whether the cold tier holds
     * a copy. A torn batch at the very end of the active segment is a write in progress, not a
     * corruption.
     */
    private void checkHotBatches(
            TopicPartition tp,
            List<SegmentInfo> segs,
            PartitionState state,
            boolean compactTopic,
            List<Violation> out) {
        for (int i = 0; i < segs.size(); i++) {
            SegmentInfo seg = segs.get(i);
            Optional<io.tierlog.hot.SegmentCorruption> found;
            try {
                found = hot.findCorruption(seg, compactTopic);
            } catch (NoSuchFileException e) {
                continue; // deleted by local retention meanwhile
            } catch (IOException | RuntimeException e) {
                out.add(
                        v(
                                tp,
                                Violation.Kind.HOT_CORRUPT,
                                "cannot read " + seg.logFile() + ": " + e));
                continue;
            }
            if (found.isEmpty() || (!seg.closed() && found.get().tornTail())) {
                continue;
            }
            io.tierlog.hot.SegmentCorruption c = found.get();
            long to =
                    i + 1 < segs.size()
                            ? segs.get(i + 1).baseOffset()
                            : Math.max(c.endAfter(), c.firstLostOffset() + 1);
            long cold = state.coldHighWatermark();
            String where =
                    c.firstLostOffset() < cold
                            ? "the cold tier holds offsets below " + cold + " (reads go there)"
                            : "the cold tier does not hold it (cold high watermark " + cold + ")";
            String msg =
                    "segment "
                            + c.file()
                            + " byte "
                            + c.position()
                            + ": batch at offset "
                            + c.firstLostOffset()
                            + " is invalid ("
                            + c.reason()
                            + "); "
                            + where;
            out.add(v(tp, Violation.Kind.HOT_CORRUPT, msg));
            onHotDamage.accept(tp, new HotDamage(c.firstLostOffset(), to, msg));
        }
    }

    private static ColdObject objectHolding(List<ColdObject> objects, long offset) {
        for (ColdObject o : objects) {
            if (o.firstOffset() <= offset && offset <= o.lastOffset()) {
                return o;
            }
        }
        return null;
    }

    /** The first difference between two batches, field by field, if any. */
    static Optional<String> diff(RecordBatch a, RecordBatch b) {
        if (a.baseOffset() != b.baseOffset() || a.lastOffset() != b.lastOffset()) {
            return Optional.of(
                    "offsets ["
                            + a.baseOffset()
                            + ", "
                            + a.lastOffset()
                            + "] vs ["
                            + b.baseOffset()
                            + ", "
                            + b.lastOffset()
                            + "]");
        }
        if (a.producerId() != b.producerId()
                || a.producerEpoch() != b.producerEpoch()
                || a.baseSequence() != b.baseSequence()
                || a.isTransactional() != b.isTransactional()
                || a.isControlBatch() != b.isControlBatch()
                || a.timestampType() != b.timestampType()
                || a.maxTimestamp() != b.maxTimestamp()
                || a.partitionLeaderEpoch() != b.partitionLeaderEpoch()) {
            return Optional.of("batch header fields differ");
        }
        Iterator<Record> ia = a.iterator();
        Iterator<Record> ib = b.iterator();
        while (ia.hasNext() && ib.hasNext()) {
            Record x = ia.next();
            Record y = ib.next();
            if (x.offset() != y.offset()
                    || x.timestamp() != y.timestamp()
                    || !Objects.equals(x.key(), y.key())
                    || !Objects.equals(x.value(), y.value())
                    || !Arrays.equals(x.headers(), y.headers(), Verifier::compareHeaders)) {
                return Optional.of("record at offset " + x.offset() + " differs");
            }
        }
        if (ia.hasNext() != ib.hasNext()) {
            return Optional.of("record counts differ");
        }
        return Optional.empty();
    }

    private static int compareHeaders(Header x, Header y) {
        return x.key().equals(y.key()) && Arrays.equals(x.value(), y.value()) ? 0 : 1;
    }

    private static Violation v(TopicPartition tp, Violation.Kind kind, String message) {
        return new Violation(tp, kind, message);
    }
}
