package io.tierlog.engine;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.TopicRecord;
import io.tierlog.hot.ReadOnlyLogDir;
import io.tierlog.hot.SegmentInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * Builds {@link PartitionReport}s, the data of {@code tierlog inspect}: per partition, the hot and
 * cold offset ranges, object count and bytes, and the offload lag (closed segments not yet
 * committed). Reads the catalog (fresh, not cached) and the hot tier's segment files through a
 * {@link ReadOnlyLogDir}, so it writes nothing into the log dir and works while a server has it
 * open. The hot high watermark reported is the end of the valid batches on disk.
 *
 * <p>Thread-safe (stateless between calls).
 */
final class Inspector {
    private final Catalog catalog;
    private final ColdIndex coldIndex;
    private final ReadOnlyLogDir hot;

    Inspector(Catalog catalog, ColdIndex coldIndex, ReadOnlyLogDir hot) {
        this.catalog = catalog;
        this.coldIndex = coldIndex;
        this.hot = hot;
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
        List<PartitionReport> out = new ArrayList<>();
        for (TopicPartition tp : tps) {
            if (topic.isEmpty() || topic.get().equals(tp.topic())) {
                out.add(report(tp));
            }
        }
        return out;
    }

    private PartitionReport report(TopicPartition tp) {
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
                lagOffsets == 0 ? 0 : lagBytes);
    }
}
