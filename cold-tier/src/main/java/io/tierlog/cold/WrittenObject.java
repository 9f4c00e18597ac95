package io.tierlog.cold;

import java.nio.file.Path;

/**
 * Summary of one finished Parquet object, as the catalog needs it. Immutable.
 *
 * @param file the local Parquet file
 * @param topic topic of the records
 * @param partition partition of the records
 * @param firstOffset base offset of the first batch
 * @param lastOffset last offset of the last batch (inclusive; batch last offset, which may exceed
 *     the last record's offset after compaction)
 * @param minTimestamp smallest record timestamp (ms), or -1 when there are no records
 * @param maxTimestamp largest record timestamp (ms), or -1 when there are no records
 * @param recordCount number of records (rows)
 * @param batchCount number of record batches
 * @param sourceBytes total size of the input batches in Kafka's format
 * @param sizeInBytes size of the Parquet file
 */
public record WrittenObject(
        Path file,
        String topic,
        int partition,
        long firstOffset,
        long lastOffset,
        long minTimestamp,
        long maxTimestamp,
        long recordCount,
        long batchCount,
        long sourceBytes,
        long sizeInBytes) {}
