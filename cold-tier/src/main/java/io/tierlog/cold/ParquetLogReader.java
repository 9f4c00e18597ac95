package io.tierlog.cold;

import java.io.IOException;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Reads record batches back from one Parquet object in an {@link ObjectStore}, fetching the footer
 * with one ranged GET of the object's tail and then only the column chunks' pages that hold the
 * requested offsets (row-group statistics plus the page index on {@code offset}).
 *
 * <p>Thread-safe after construction.
 */
public final class ParquetLogReader {
    private final ObjectStore store;
    private final String key;
    private final long objectSize;

    public ParquetLogReader(ObjectStore store, String key, long objectSize) {
        this.store = store;
        this.key = key;
        this.objectSize = objectSize;
    }

    /**
     * The batches holding offsets from {@code startOffset}: starting with the batch that contains
     * it, whole batches with their original boundaries, offsets, timestamps, producer fields,
     * headers and compression codec, at least one batch, and no more than {@code maxBytes} beyond
     * the first batch. Empty when {@code startOffset} is past the object's last offset.
     */
    public MemoryRecords read(long startOffset, int maxBytes) throws IOException {
        throw new UnsupportedOperationException("not implemented yet");
    }
}
