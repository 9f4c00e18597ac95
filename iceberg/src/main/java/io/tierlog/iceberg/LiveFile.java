package io.tierlog.iceberg;

import org.apache.iceberg.DataFile;

/**
 * One live data file of a table as the registrar's mirror holds it. Immutable.
 *
 * @param key the object key ({@code path} for a file outside the bucket)
 * @param partition the file's {@code partition_id}
 * @param firstOffset first offset (from the key), or -1 for a file not named like an object
 * @param lastOffset last offset (inclusive), or -1
 * @param recordCount the file's record count as the table records it
 * @param file the table's data file entry
 */
record LiveFile(
        String key,
        int partition,
        long firstOffset,
        long lastOffset,
        long recordCount,
        DataFile file) {}
