package io.tierlog.engine;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.CatalogException;
import io.tierlog.catalog.PartitionState;
import io.tierlog.catalog.TopicRecord;
import io.tierlog.hot.LogCleaner;
import io.tierlog.hot.ReadOnlyLogDir;
import io.tierlog.hot.SegmentInfo;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;

/**
 * Builds {@link PartitionReport}s, the data of {@code tierlog inspect}: per partition, the hot and
 * cold offset ranges, object count and bytes, and the offload lag (closed segments not yet
 * committed), and for a compacted topic (or a partition the hot cleaner has cleaned) how far
 * compaction has got ({@link CompactionReport}): the dirty ratio and last cleaning of the hot tier
 * from the cleaner's checkpoint files in the log dir, the cold cleaned offset and last cold
 * cleaning from the catalog. Reads the catalog (fresh, not cached) and the hot tier's segment files
 * through a {@link ReadOnlyLogDir}, so it writes nothing into the log dir and works while a server
 * has it open. The hot high watermark reported is the end of the valid batches on disk; the last
 * stable offset and open transactions (producer, epoch, first offset, last write) come from a scan
 * of the batch headers ({@link ReadOnlyLogDir#lastStableOffset}) and of the batches from the LSO on
 * ({@link OpenTxnScan}).
 *
 * <p>Thread-safe (stateless between calls).
 */
final class Inspector {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Inspector.class);

    private final Catalog catalog;
    private final ColdIndex coldIndex;
    private final ReadOnlyLogDir hot;
    private final Predicate<String> compacted;

    /**
     * @param compacted whether a topic's effective {@code cleanup.policy} holds {@code compact}
     */
    Inspector(
            Catalog catalog, ColdIndex coldIndex, ReadOnlyLogDir hot, Predicate<String> compacted) {
        this.catalog = catalog;
        this.coldIndex = coldIndex;
        this.hot = hot;
        this.compacted = compacted;
    }

    List<PartitionReport> inspect(Optional<String> topic) {
        TreeSet<TopicPartition> tps =
                new TreeSet<>(
                        (a, b) ->
                                a.topic().equals(b.topic())
                                        ? Integer.compare(a.partition(), b.partition())
                                        : a.topic().compareTo(b.topic()));
        for (TopicRecord t : catalog.topics()) {
            for (int p = 0; p < t.partitions(); p++) {
                tps.add(new TopicPartition(t.name(), p));
            }
        }
        tps.addAll(hot.partitions());
        Map<TopicPartition, Long> cleaned = cleanerFile(LogCleaner::readCheckpoint);
        Map<TopicPartition, Long> lastCleaning = cleanerFile(LogCleaner::readLastCleanings);
        List<PartitionReport> out = new ArrayList<>();
        for (TopicPartition tp : tps) {
            if (topic.isEmpty() || topic.get().equals(tp.topic())) {
                out.add(report(tp, cleaned, lastCleaning));
            }
        }
        return out;
    }

    private interface CleanerFile {
        Map<TopicPartition, Long> read(Path logDir) throws IOException;
    }

    /** A cleaner checkpoint file of the log dir; none when it cannot be read (being replaced). */
    private Map<TopicPartition, Long> cleanerFile(CleanerFile file) {
        try {
            return file.read(hot.logDir());
        } catch (IOException | RuntimeException e) {
            LOG.warn("Cannot read the log cleaner's checkpoints in {}: {}", hot.logDir(), e);
            return Map.of();
        }
    }

    private Optional<CompactionReport> compaction(
            TopicPartition tp,
            List<SegmentInfo> segs,
            Map<TopicPartition, Long> cleaned,
            Map<TopicPartition, Long> lastCleaning) {
        if (!compacted.test(tp.topic()) && !cleaned.containsKey(tp)) {
            return Optional.empty();
        }
        long firstDirty = cleaned.getOrDefault(tp, -1L);
        long coldCleaned = 0;
        long lastCold = -1;
        try {
            PartitionState st = catalog.partitionState(tp.topic(), tp.partition());
            coldCleaned = st.coldCleanedOffset();
            lastCold = st.lastColdCleaningMs();
        } catch (CatalogException e) {
            // not in the catalog (a hot-only partition of a deleted topic): nothing cold
        }
        return Optional.of(
                new CompactionReport(
                        LogCleaner.dirtyRatio(segs, firstDirty),
                        firstDirty,
                        lastCleaning.getOrDefault(tp, -1L),
                        coldCleaned,
                        lastCold));
    }

    private PartitionReport report(
            TopicPartition tp,
            Map<TopicPartition, Long> cleaned,
            Map<TopicPartition, Long> lastCleaning) {
        // Hot first: local retention only deletes below the cold high watermark read afterwards.
        List<SegmentInfo> segs = hot.segments(tp);
        ColdIndex.Snapshot s = coldIndex.refresh(tp);
        long hotStart = segs.isEmpty() ? s.coldHighWatermark() : segs.get(0).baseOffset();
        long hw = segs.isEmpty() ? s.coldHighWatermark() : segs.get(segs.size() - 1).nextOffset();
        long hotBytes = 0;
        long closedEnd = hotStart;
        long lagBytes = 0;
        for (SegmentInfo seg : segs) {
            hotBytes += seg.sizeInBytes();
            if (seg.closed()) {
                closedEnd = Math.max(closedEnd, seg.nextOffset());
                if (seg.nextOffset() > s.coldHighWatermark()) {
                    lagBytes += seg.sizeInBytes();
                }
            }
        }
        long lagOffsets = Math.max(0, closedEnd - Math.max(s.coldHighWatermark(), hotStart));
        long lso = hw;
        List<OpenTransaction> open = List.of();
        if (!segs.isEmpty()) {
            try {
                // the hot tier holds every open transaction whole: retention and offload stop at
                // the LSO
                lso = Math.min(hw, hot.lastStableOffset(tp, hotStart));
                if (lso < hw) {
                    open = OpenTxnScan.scan(hot, tp, segs, lso);
                }
            } catch (IOException | RuntimeException e) {
                LOG.warn("Cannot scan the open transactions of {}: {}", tp, e.toString());
            }
        }
        return new PartitionReport(
                tp,
                hotStart,
                hw,
                hotBytes,
                segs.size(),
                s.coldLogStartOffset(),
                s.coldHighWatermark(),
                s.objects().size(),
                s.bytes(),
                lagOffsets,
                lagOffsets == 0 ? 0 : lagBytes,
                compaction(tp, segs, cleaned, lastCleaning),
                lso,
                open);
    }
}
