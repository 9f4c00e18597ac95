package io.tierlog.hot;

import io.tierlog.common.Config;
import java.time.Duration;

/**
 * The log cleaner's server-wide settings (Kafka's {@code log.cleaner.*}; see {@link
 * HotTierOptions}). Immutable and thread-safe.
 *
 * @param enabled {@code log.cleaner.enable}
 * @param threads {@code log.cleaner.threads}
 * @param maxIoBytesPerSecond {@code log.cleaner.io.max.bytes.per.second}, read and written bytes of
 *     all threads together
 * @param dedupeBufferBytes {@code log.cleaner.dedupe.buffer.size}, split evenly between threads
 * @param backoff {@code log.cleaner.backoff.ms}
 */
public record CleanerConfig(
        boolean enabled,
        int threads,
        double maxIoBytesPerSecond,
        long dedupeBufferBytes,
        Duration backoff) {

    public static CleanerConfig from(Config c) {
        return new CleanerConfig(
                c.get(HotTierOptions.LOG_CLEANER_ENABLE),
                c.get(HotTierOptions.LOG_CLEANER_THREADS),
                c.get(HotTierOptions.LOG_CLEANER_IO_MAX_BYTES_PER_SECOND),
                c.get(HotTierOptions.LOG_CLEANER_DEDUPE_BUFFER_SIZE).bytes(),
                c.get(HotTierOptions.LOG_CLEANER_BACKOFF_MS));
    }

    public static CleanerConfig defaults() {
        return from(Config.empty());
    }

    /** Memory of each thread's offset map. */
    long mapBytesPerThread() {
        return dedupeBufferBytes / Math.max(1, threads);
    }
}
