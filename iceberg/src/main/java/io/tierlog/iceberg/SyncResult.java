package io.tierlog.iceberg;

/**
 * One reconcile round of one topic's table.
 *
 * @param topic the topic
 * @param added data files added
 * @param removed data files removed (retention, merges)
 * @param committed whether a table commit was made
 * @param skipped why nothing was done, or empty ("" when the round ran)
 */
public record SyncResult(String topic, int added, int removed, boolean committed, String skipped) {
    public static SyncResult skipped(String topic, String why) {
        return new SyncResult(topic, 0, 0, false, why);
    }
}
