package io.tierlog.iceberg;

import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.ObjectStoreException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * Reads an object's Parquet footer with ranged GETs of its tail (one when the footer fits in the
 * first {@value #TAIL} bytes). Stateless, so thread-safe.
 */
final class ObjectFooters {
    private static final int TAIL = 64 * 1024;
    private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

    private ObjectFooters() {}

    static ParquetMetadata read(ObjectStore store, String key, long size) throws IOException {
        if (size < 12) {
            throw new ObjectStoreException(key, "too small for Parquet: " + size + " bytes");
        }
        int tail = (int) Math.min(size, TAIL);
        ByteBuffer b = store.get(key, size - tail, tail).slice().order(ByteOrder.LITTLE_ENDIAN);
        if (b.remaining() != tail) {
            throw new ObjectStoreException(key, "short read of the footer");
        }
        for (int i = 0; i < 4; i++) {
            if (b.get(tail - 4 + i) != MAGIC[i]) {
                throw new ObjectStoreException(key, "not a Parquet file (no trailing magic)");
            }
        }
        int len = b.getInt(tail - 8);
        if (len <= 0 || len > size - 12) {
            throw new ObjectStoreException(key, "bad Parquet footer length " + len);
        }
        byte[] footer = new byte[len];
        if (len + 8 <= tail) {
            b.duplicate().position(tail - 8 - len).get(footer);
        } else {
            ByteBuffer f = store.get(key, size - 8 - len, len);
            f.get(footer);
        }
        try {
            return new ParquetMetadataConverter()
                    .readParquetMetadata(
                            new ByteArrayInputStream(footer), ParquetMetadataConverter.NO_FILTER);
        } catch (IOException | RuntimeException e) {
            throw new ObjectStoreException(key, "cannot parse the Parquet footer: " + e, e);
        }
    }
}
