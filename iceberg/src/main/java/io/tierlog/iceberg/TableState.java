package io.tierlog.iceberg;

import java.util.List;
import java.util.Optional;

/**
 * What tierlog knows of one topic's table, as of its last reconcile round.
 *
 * @param topic the topic
 * @param table the table's full name ({@code <namespace>.<topic>})
 * @param enabled whether the topic is a table ({@code iceberg.enabled})
 * @param snapshotId the current snapshot, if the table has one
 * @param files live data files
 * @param partitions per partition, in partition order
 * @param drift why registration is paused because someone else wrote the table, if it is
 * @param lastError the last registration failure, if the last round failed
 * @param lastCommitMs epoch millis of tierlog's last commit to the table, or -1
 */
public record TableState(
        String topic,
        String table,
        boolean enabled,
        Optional<Long> snapshotId,
        int files,
        List<PartitionTableState> partitions,
        Optional<String> drift,
        Optional<String> lastError,
        long lastCommitMs) {
    public TableState {
        partitions = List.copyOf(partitions);
    }
}
