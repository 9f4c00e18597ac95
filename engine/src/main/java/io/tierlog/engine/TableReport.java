package io.tierlog.engine;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.iceberg.PartitionTableState;
import io.tierlog.iceberg.TableState;
import java.util.ArrayList;
import java.util.List;

/**
 * One topic's Iceberg table for {@code tierlog inspect}: the table's state with, per partition, the
 * registered and catalog ranges and the freshness lag against the topic's target. The lag of a
 * process that does not append (inspect) is the age of the oldest committed object the table lacks
 * (a lower bound of the append-to-queryable time). Immutable.
 *
 * @param state the table's state as of its last round
 * @param targetMs the topic's {@code iceberg.freshness.target.ms}
 * @param partitions per partition
 */
public record TableReport(TableState state, long targetMs, List<Partition> partitions) {
    public TableReport {
        partitions = List.copyOf(partitions);
    }

    /**
     * One partition.
     *
     * @param lagMs the freshness lag (ms), 0 when the table holds every committed object
     * @param breached whether {@code lagMs} is past the target
     */
    public record Partition(PartitionTableState table, long lagMs, boolean breached) {}

    /** The report of {@code state}, with lags measured against the catalog at {@code nowMs}. */
    static TableReport of(TableState state, Catalog catalog, long targetMs, long nowMs) {
        List<Partition> out = new ArrayList<>();
        for (PartitionTableState p : state.partitions()) {
            long lag = 0;
            if (p.unregisteredOffsets() > 0) {
                for (ColdObject o : catalog.objects(state.topic(), p.partition())) {
                    if (o.firstOffset() >= Math.max(p.nextOffset(), 0)) {
                        lag = Math.max(0, nowMs - o.createdAt().toEpochMilli());
                        break;
                    }
                }
            }
            out.add(new Partition(p, lag, lag > targetMs));
        }
        return new TableReport(state, targetMs, out);
    }

    /** Lines for the CLI: the table, then one per partition. */
    public String format() {
        StringBuilder b = new StringBuilder();
        b.append("table ")
                .append(state.table())
                .append(" (topic ")
                .append(state.topic())
                .append(state.enabled() ? "" : ", registration off")
                .append("): snapshot ")
                .append(state.snapshotId().map(String::valueOf).orElse("none"))
                .append(", files ")
                .append(state.files())
                .append(", freshness target ")
                .append(targetMs)
                .append(" ms");
        state.drift().ifPresent(d -> b.append(", DRIFT: ").append(d));
        state.lastError().ifPresent(e -> b.append(", last error: ").append(e));
        for (Partition p : partitions) {
            PartitionTableState t = p.table();
            b.append(System.lineSeparator())
                    .append("  ")
                    .append(state.topic())
                    .append('-')
                    .append(t.partition())
                    .append(": registered ")
                    .append(range(t.firstOffset(), t.nextOffset()))
                    .append(" (")
                    .append(t.files())
                    .append(" files), catalog next ")
                    .append(t.catalogNextOffset())
                    .append(", unregistered offsets ")
                    .append(t.unregisteredOffsets())
                    .append(", lag ")
                    .append(p.lagMs())
                    .append(" ms")
                    .append(p.breached() ? " BREACH" : "");
        }
        return b.toString();
    }

    private static String range(long first, long next) {
        return first < 0 ? "none" : first + ".." + (next - 1);
    }
}
