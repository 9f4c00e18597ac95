package io.tierlog.compactor;

import java.util.OptionalLong;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Kafka's compaction rule for the records of a cold run, applied through Kafka's own {@link
 * MemoryRecords#filterTo} (which rebuilds a batch of kept records with its base offset, last offset
 * delta, producer fields, leader epoch, codec and timestamps, and sets the KIP-534 delete horizon
 * {@code now + delete.retention.ms} on a batch that keeps a tombstone and has none yet):
 *
 * <ul>
 *   <li>a record is kept only if it is the latest of its key in the pass's key map (or its key is
 *       not in the map: nothing newer was mapped); keyless records go, as in Kafka's cleaner;
 *   <li>a tombstone is kept until its batch's delete horizon has passed, and only removed at all
 *       when {@code removeTombstones} (the pass rewrites from the partition's cold log start);
 *   <li>control batches (transaction markers) are kept whole;
 *   <li>a data batch left without records is dropped: the cold layout has no row for an empty
 *       batch, and no reader needs one (consumers skip offset gaps; producer state lives in the hot
 *       tier's snapshots, never rebuilt from cold objects).
 * </ul>
 *
 * <p>Not thread-safe (the key map's digest).
 */
final class ColdRecordFilter extends MemoryRecords.RecordFilter {
    private final ColdKeyMap map;
    private final boolean removeTombstones;
    private long tombstonesRemoved;
    private long earliestKeptHorizon = Long.MAX_VALUE;

    ColdRecordFilter(long nowMs, long deleteRetentionMs, ColdKeyMap map, boolean removeTombstones) {
        super(nowMs, deleteRetentionMs);
        this.map = map;
        this.removeTombstones = removeTombstones;
    }

    @Override
    protected BatchRetentionResult checkBatchRetention(RecordBatch batch) {
        return new BatchRetentionResult(
                batch.isControlBatch() ? BatchRetention.RETAIN_EMPTY : BatchRetention.DELETE_EMPTY,
                false);
    }

    @Override
    protected boolean shouldRetainRecord(RecordBatch batch, Record record) {
        if (batch.isControlBatch()) {
            return true;
        }
        if (!record.hasKey()) {
            return false;
        }
        long latest = map.latestOffset(record.key());
        if (latest >= 0 && record.offset() < latest) {
            return false;
        }
        if (record.hasValue()) {
            return true;
        }
        OptionalLong horizon = batch.deleteHorizonMs();
        if (removeTombstones && horizon.isPresent() && currentTime >= horizon.getAsLong()) {
            tombstonesRemoved++;
            return false;
        }
        long due = horizon.isPresent() ? horizon.getAsLong() : currentTime + deleteRetentionMs;
        earliestKeptHorizon = Math.min(earliestKeptHorizon, due);
        return true;
    }

    long tombstonesRemoved() {
        return tombstonesRemoved;
    }

    /** When the earliest tombstone kept by this filter may go (Long.MAX_VALUE if none was kept). */
    long earliestKeptHorizon() {
        return earliestKeptHorizon;
    }
}
