package io.tierlog.engine;

import io.tierlog.catalog.Catalog;
import io.tierlog.hot.PartitionLog;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A partition's log start offset across both tiers, and Kafka's DeleteRecords that moves it: the
 * offset below which {@link TieredLog} answers nothing, the earliest offset either tier holds, and
 * the offsets of both tiers as {@link LogOffsets}.
 *
 * <p>The log start is the larger of the catalog's (as the {@link ColdIndex} last loaded it) and the
 * one the hot tier was asked for ({@link PartitionLog#requestedLogStartOffset()}); the queries read
 * only memory. {@link #deleteRecords} blocks (JDBC, disk).
 *
 * <p>Thread-safe: holds no state of its own beyond the thread-safe parts it was given; concurrent
 * DeleteRecords of one partition are ordered by the catalog, which never moves a log start back.
 */
final class LogStart {
    private static final Logger LOG = LoggerFactory.getLogger(LogStart.class);

    private final EngineResources res;
    private final Catalog catalog;
    private final ColdIndex coldIndex;
    private final ColdRetention retention;
    private final TopicRegistry topics;
    private final LogStartOffsets logStartCopy;

    LogStart(EngineResources res) {
        this.res = res;
        this.catalog = res.catalog();
        this.coldIndex = res.coldIndex();
        this.retention = res.retention();
        this.topics = res.topics();
        this.logStartCopy = new LogStartOffsets(res.dataDir());
    }

    /** The first offset either tier holds, never below the log start. From memory. */
    long earliest(TopicPartition tp, PartitionLog log) {
        ColdIndex.Bounds b = coldIndex.bounds(tp);
        long earliest =
                b.empty()
                        ? log.logStartOffset()
                        : Math.min(b.coldLogStartOffset(), log.logStartOffset());
        return Math.max(earliest, logStart(b, log));
    }

    /** The log start offset moved by {@link #deleteRecords} (0 if never), from memory. */
    long logStart(TopicPartition tp, PartitionLog log) {
        return logStart(coldIndex.bounds(tp), log);
    }

    private static long logStart(ColdIndex.Bounds b, PartitionLog log) {
        return Math.max(b.logStartOffset(), log.requestedLogStartOffset());
    }

    /** Both tiers' offsets, from memory: see {@link TieredLog#offsets}. */
    LogOffsets offsets(TopicPartition tp, PartitionLog log) {
        ColdIndex.Bounds b = coldIndex.bounds(tp);
        long hotStart = log.logStartOffset();
        // the LSO first: read after the high watermark it could pass it
        long lso = log.lastStableOffset();
        long hw = log.highWatermark();
        long earliest = b.empty() ? hotStart : Math.min(b.coldLogStartOffset(), hotStart);
        earliest = Math.max(earliest, logStart(b, log));
        return new LogOffsets(
                earliest,
                b.coldLogStartOffset(),
                b.coldHighWatermark(),
                hotStart,
                hw,
                Math.min(lso, hw));
    }

    /** Kafka's DeleteRecords: see {@link TieredLog#deleteRecords} for the contract. */
    long deleteRecords(TopicPartition tp, PartitionLog log, long offset) throws IOException {
        long hw = log.highWatermark();
        long target = offset == -1 ? hw : offset;
        if (target < 0 || target > hw) {
            throw new OffsetOutOfRangeException(
                    "Cannot delete records of "
                            + tp
                            + " below offset "
                            + offset
                            + ": it is not in [0, "
                            + hw
                            + "] (the high watermark)");
        }
        long current = logStart(tp, log);
        if (target <= current) {
            return Math.max(current, earliest(tp, log));
        }
        if (res.guard() != null && !res.guard().allows("DeleteRecords of " + tp)) {
            throw new org.apache.kafka.common.errors.KafkaStorageException(
                    "the catalog is not this data dir's own or not durable: records of "
                            + tp
                            + " are not deleted");
        }
        // The next object must start where the hot tier then begins: the segment holding target.
        long coldFloor = target;
        for (io.tierlog.hot.SegmentInfo seg : log.segments()) {
            if (seg.baseOffset() <= target) {
                coldFloor = seg.baseOffset();
            }
        }
        io.tierlog.catalog.LogStartUpdate u;
        try {
            u = catalog.advanceLogStart(tp.topic(), tp.partition(), target, coldFloor);
        } catch (io.tierlog.catalog.CatalogException e) {
            throw new org.apache.kafka.common.errors.KafkaStorageException(
                    "cannot record the log start offset of " + tp + ": " + e.getMessage(), e);
        }
        Optional<TopicInfo> info = topics.topic(tp.topic());
        if (info.isPresent()) {
            // a copy for a catalog rebuild; the catalog already holds it, so a failure only warns
            try {
                Map<String, java.util.UUID> ids = new java.util.HashMap<>();
                topics.topics().forEach(t -> ids.put(t.name(), t.uuid()));
                logStartCopy.record(tp, u.logStartOffset(), info.get().uuid(), ids);
            } catch (IOException | RuntimeException e) {
                LOG.warn(
                        "cannot copy the log start offset of {} to {} (the catalog holds it): {}",
                        tp,
                        LogStartOffsets.FILE,
                        e.toString());
            }
        }
        // the hot tier may start higher (the older offsets are cold): that is not the log start
        log.advanceLogStartOffset(u.logStartOffset());
        coldIndex.refreshQuietly(tp);
        if (!u.removed().isEmpty()) {
            LOG.info(
                    "DeleteRecords: {} cold objects of {} below offset {} removed from the catalog",
                    u.removed().size(),
                    tp,
                    u.logStartOffset());
            if (retention != null) {
                retention.deleteObjects(u.removed());
            }
        }
        // retention may have removed more than asked: the low watermark is the earliest offset
        return Math.max(u.logStartOffset(), earliest(tp, log));
    }
}
