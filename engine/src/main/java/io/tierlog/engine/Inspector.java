package io.tierlog.engine;

import io.tierlog.catalog.TopicRecord;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.SegmentInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * Builds {@link PartitionReport}s, the data of {@code tierlog inspect}: per partition, the hot and
 * cold offset ranges, object count and bytes, and the offload lag (closed segments not yet
 * committed). Reads the catalog (fresh, not cached) and the hot tier's segment lists.
 *
 * <p>Thread-safe (stateless between calls).
 */
final class Inspector {
    private final EngineResources res;

    Inspector(TieredLog log, EngineResources res) {
        this.res = res;
    }

    List<PartitionReport> inspect(Optional<String> topic) {
        TreeSet<TopicPartition> tps =
                new TreeSet<>(
                        (a, b) ->
                                a.topic().equals(b.topic())
                                        ? Integer.compare(a.partition(), b.partition())
                                        : a.topic().compareTo(b.topic()));
        for (TopicRecord t : res.catalog().topics()) {
            for (int p = 0; p < t.partitions(); p++) {
                tps.add(new TopicPartition(t.name(), p));
            }
        }
        for (PartitionLog l : res.logs().partitions()) {
            tps.add(l.topicPartition());
        }
        List<PartitionReport> out = new ArrayList<>();
        for (TopicPartition tp : tps) {
            if (topic.isEmpty() || topic.get().equals(tp.topic())) {
                out.add(report(tp));
            }
        }
        return out;
    }

    private PartitionReport report(TopicPartition tp) {
        ColdIndex.Snapshot s = res.coldIndex().refresh(tp);
        Optional<PartitionLog> log = res.logs().partition(tp);
        long hotStart = log.map(PartitionLog::logStartOffset).orElse(s.coldHighWatermark());
        long hw = log.map(PartitionLog::highWatermark).orElse(s.coldHighWatermark());
        List<SegmentInfo> segs = log.map(PartitionLog::segments).orElse(List.of());
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
