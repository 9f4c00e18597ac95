package io.tierlog.engine;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.CatalogException;
import io.tierlog.catalog.CatalogUnavailableException;
import io.tierlog.catalog.PartitionState;
import io.tierlog.catalog.RetiredObject;
import io.tierlog.cold.ObjectFooter;
import io.tierlog.cold.ObjectStore;
import io.tierlog.hot.ReadOnlyLogDir;
import io.tierlog.hot.SegmentInfo;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;

/**
 * The checks of {@code tierlog verify} that look past the catalog, to catch a lost or rolled-back
 * one (which {@link Verifier}, trusting the catalog, cannot):
 *
 * <ul>
 *   <li>the catalog is the one the data dir's {@code catalog.id} names;
 *   <li>every partition of the hot tier, known to the catalog or not, starts at or below its cold
 *       high watermark (0 while nothing was committed): a hot log start above it is a hole, the
 *       offsets in between are in neither tier (partitions with committed objects are checked by
 *       {@link Verifier});
 *   <li>every object in the bucket (listed, footer read) that the catalog does not reference: a
 *       violation if it holds offsets neither the catalog nor the hot tier holds (data only in the
 *       bucket); a note if the hot tier still holds them (uploaded, not yet committed), if it
 *       duplicates committed offsets (an orphan of a retried upload, swept after the grace period)
 *       or lies below the cold log start (a retention leftover), or if it cannot be read; an object
 *       a compaction retired is expected there until the sweeper deletes it (a note, whatever its
 *       offsets);
 *   <li>the schema registry's copy in the bucket holds every registry row of the catalog ({@link
 *       RegistryAudit}).
 * </ul>
 *
 * Order of reads: the bucket is listed before the hot tier is read, and the hot tier before the
 * catalog, so that work a running server does meanwhile (commit, then local deletion) never looks
 * like a loss. Only reads. Not thread-safe (one call per instance).
 */
final class CatalogAudit {
    private final Catalog catalog;
    private final ObjectStore store;
    private final ReadOnlyLogDir hot;
    private final String prefix;
    private final Duration grace;
    private final Optional<UUID> boundId;
    private final long nowMs;

    CatalogAudit(
            Catalog catalog,
            ObjectStore store,
            ReadOnlyLogDir hot,
            String prefix,
            Duration grace,
            Optional<UUID> boundId,
            long nowMs) {
        this.catalog = catalog;
        this.store = store;
        this.hot = hot;
        this.prefix = prefix;
        this.grace = grace;
        this.boundId = boundId;
        this.nowMs = nowMs;
    }

    /** Adds what it finds to {@code violations} and {@code notes}. */
    void audit(List<Violation> violations, List<String> notes) {
        checkIdentity(violations);
        RegistryAudit.audit(catalog, store, prefix, violations, notes);
        BucketSurvey survey;
        try {
            survey = BucketSurvey.of(store, prefix);
        } catch (IOException e) {
            violations.add(
                    new Violation(
                            null,
                            Violation.Kind.OBJECT_MISSING,
                            "cannot list the bucket: " + e.getMessage()));
            return;
        }
        Map<TopicPartition, Optional<Long>> hotStarts = new HashMap<>();
        for (TopicPartition tp : hot.partitions()) {
            List<SegmentInfo> segs = hot.segments(tp);
            hotStarts.put(
                    tp, segs.isEmpty() ? Optional.empty() : Optional.of(segs.get(0).baseOffset()));
        }
        Set<String> referenced;
        Map<String, RetiredObject> retired = new HashMap<>();
        try {
            referenced = new HashSet<>(catalog.allObjectKeys());
            // after the committed keys: an object retired in between is seen as one or the other
            catalog.retiredObjects(Long.MAX_VALUE).forEach(r -> retired.put(r.key(), r));
        } catch (CatalogException e) {
            violations.add(
                    new Violation(
                            null, Violation.Kind.COLD_NOT_CONTIGUOUS, "catalog unreadable: " + e));
            return;
        }
        for (Map.Entry<TopicPartition, Optional<Long>> e : hotStarts.entrySet()) {
            checkHole(e.getKey(), e.getValue(), violations);
        }
        for (BucketSurvey.Unusable u : survey.unusable()) {
            notes.add("unreadable object in the bucket, not in any chain: " + u);
        }
        for (Map.Entry<TopicPartition, List<BucketSurvey.Found>> e :
                survey.byPartition().entrySet()) {
            TopicPartition tp = e.getKey();
            Optional<PartitionState> state = state(tp);
            Optional<Long> hotStart = hotStarts.getOrDefault(tp, Optional.empty());
            for (BucketSurvey.Found f : e.getValue()) {
                RetiredObject r = retired.get(f.key());
                if (referenced.contains(f.key())) {
                    continue;
                }
                if (r != null) {
                    boolean due = nowMs - r.retiredAtMs() >= grace.toMillis();
                    notes.add(
                            tp
                                    + ": object "
                                    + f.key()
                                    + " was replaced by a compaction at "
                                    + java.time.Instant.ofEpochMilli(r.retiredAtMs())
                                    + (due
                                            ? " (retired past the grace period: the sweeper"
                                                    + " deletes it)"
                                            : " (retired, kept for readers until the grace period"
                                                    + " ends)"));
                    continue;
                }
                classify(tp, f, state, hotStart, violations, notes);
            }
        }
    }

    private void checkIdentity(List<Violation> violations) {
        if (boundId.isEmpty()) {
            return;
        }
        String problem;
        try {
            UUID id = catalog.id();
            if (id.equals(boundId.get())) {
                return;
            }
            problem = "the catalog has id " + id;
        } catch (CatalogUnavailableException e) {
            problem = e.getMessage();
        }
        violations.add(
                new Violation(
                        null,
                        Violation.Kind.CATALOG_NOT_OWN,
                        problem
                                + ", but the data dir belongs to catalog "
                                + boundId.get()
                                + ": restore it or run `tierlog catalog rebuild`"));
    }

    private Optional<PartitionState> state(TopicPartition tp) {
        try {
            return Optional.of(catalog.partitionState(tp.topic(), tp.partition()));
        } catch (CatalogException unknown) {
            return Optional.empty();
        }
    }

    /** A hot log start above the cold high watermark, where {@link Verifier} does not look. */
    private void checkHole(TopicPartition tp, Optional<Long> hotStart, List<Violation> out) {
        if (hotStart.isEmpty()) {
            return;
        }
        Optional<PartitionState> s = state(tp);
        if (s.isPresent() && s.get().objectCount() > 0) {
            return; // Verifier reports GAP_BETWEEN_TIERS for these
        }
        // offsets below the log start were deleted on purpose (DeleteRecords): not a hole
        long coldTop = s.map(p -> Math.max(p.coldHighWatermark(), p.logStartOffset())).orElse(0L);
        if (hotStart.get() > coldTop) {
            out.add(
                    new Violation(
                            tp,
                            Violation.Kind.GAP_BETWEEN_TIERS,
                            "the hot log starts at "
                                    + hotStart.get()
                                    + " above the cold high watermark "
                                    + coldTop
                                    + (s.isEmpty() ? " (partition unknown to the catalog)" : "")
                                    + ": offsets ["
                                    + coldTop
                                    + ", "
                                    + hotStart.get()
                                    + ") are in neither tier"));
        }
    }

    private void classify(
            TopicPartition tp,
            BucketSurvey.Found f,
            Optional<PartitionState> state,
            Optional<Long> hotStart,
            List<Violation> violations,
            List<String> notes) {
        ObjectFooter o = f.footer();
        String range = o.firstOffset() + ".." + o.lastOffset();
        boolean old = nowMs - f.lastModified().toEpochMilli() >= grace.toMillis();
        if (state.isPresent() && o.lastOffset() < state.get().logStartOffset()) {
            notes.add(
                    tp
                            + ": object "
                            + o.key()
                            + " lies below the log start offset "
                            + state.get().logStartOffset()
                            + " (left by DeleteRecords; the sweeper deletes it)");
            return;
        }
        if (state.isPresent() && !state.get().empty()) {
            PartitionState s = state.get();
            if (o.firstOffset() >= s.coldLogStartOffset()
                    && o.lastOffset() < s.coldHighWatermark()) {
                notes.add(
                        tp
                                + ": object "
                                + o.key()
                                + " duplicates committed offsets "
                                + range
                                + (old
                                        ? " (an orphan older than the grace period: the sweeper"
                                                + " deletes it)"
                                        : " (an orphan within the grace period)"));
                return;
            }
            if (o.lastOffset() < s.coldLogStartOffset()) {
                notes.add(
                        tp
                                + ": object "
                                + o.key()
                                + " lies below the cold log start "
                                + s.coldLogStartOffset()
                                + " (left by retention)");
                return;
            }
        }
        long missingFrom =
                state.filter(s -> !s.empty())
                        .map(s -> Math.max(o.firstOffset(), s.coldHighWatermark()))
                        .orElse(o.firstOffset());
        if (hotStart.isPresent() && hotStart.get() <= missingFrom) {
            notes.add(
                    tp
                            + ": object "
                            + o.key()
                            + " (offsets "
                            + range
                            + ") is not committed yet; the hot tier still holds those offsets");
            return;
        }
        long missingTo =
                hotStart.isPresent()
                        ? Math.min(o.lastOffset(), hotStart.get() - 1)
                        : o.lastOffset();
        violations.add(
                new Violation(
                        tp,
                        Violation.Kind.OBJECTS_NOT_IN_CATALOG,
                        "object "
                                + o.key()
                                + " holds offsets "
                                + missingFrom
                                + ".."
                                + missingTo
                                + " that neither the catalog nor the hot tier holds (data only in"
                                + " the bucket): run `tierlog catalog rebuild`"));
    }
}
