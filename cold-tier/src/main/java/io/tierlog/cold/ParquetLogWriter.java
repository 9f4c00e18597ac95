package io.tierlog.cold;

import io.tierlog.common.Config;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Writes one Parquet object (layout documented in {@code ColdLayout}) from the record batches of
 * one partition, in offset order. Batches of any codec are accepted and decompressed.
 *
 * <p>Not thread-safe: one thread appends, then calls {@link #finish()}; {@link #close()} without
 * {@code finish()} aborts and deletes the partial file.
 */
public final class ParquetLogWriter implements Closeable {

    private ParquetLogWriter() {}

    /** Creates (or replaces) {@code localFile} for records of {@code topic}-{@code partition}. */
    public static ParquetLogWriter open(
            Path localFile, String topic, int partition, ColdTierOptions options)
            throws IOException {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** As {@link #open(Path, String, int, ColdTierOptions)} with options from {@code config}. */
    public static ParquetLogWriter open(Path localFile, String topic, int partition, Config config)
            throws IOException {
        return open(localFile, topic, partition, ColdTierOptions.from(config));
    }

    /**
     * Appends every record of {@code batch}; its base offset must be greater than the last offset
     * of the previous batch.
     */
    public void append(RecordBatch batch) throws IOException {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** Writes the footer and closes the file. */
    public WrittenObject finish() throws IOException {
        throw new UnsupportedOperationException("not implemented yet");
    }

    @Override
    public void close() throws IOException {}
}
