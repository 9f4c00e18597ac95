package io.tierlog.hot;

/**
 * Totals of the log cleaner since it started (for metrics). Immutable.
 *
 * @param passes cleanings finished (one partition each)
 * @param bytesRead segment bytes read (building offset maps and recopying)
 * @param bytesWritten bytes of cleaned segments written
 * @param recordsRead records examined while recopying
 * @param recordsRetained records kept by recopying
 * @param failures cleanings that failed with an error (retried after the backoff)
 * @param lastMapUtilization share of the offset map the last cleaning used (0..1)
 */
public record CleanerTotals(
        long passes,
        long bytesRead,
        long bytesWritten,
        long recordsRead,
        long recordsRetained,
        long failures,
        double lastMapUtilization) {}
