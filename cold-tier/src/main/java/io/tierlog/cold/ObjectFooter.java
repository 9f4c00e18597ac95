package io.tierlog.cold;

import java.io.IOException;
import java.util.Map;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;

/**
 * What a cold object says about itself in its Parquet file key-value metadata (written by {@link
 * ParquetLogWriter}, keys in {@link ColdLayout}): topic, partition, offset range, time range,
 * record count and format version. Read from the footer alone (a ranged GET of the object's tail),
 * so a whole bucket can be surveyed without reading any data page: what {@code tierlog catalog
 * rebuild} and {@code tierlog verify} do. Immutable, so thread-safe.
 *
 * @param key the object key
 * @param sizeInBytes the object's size
 * @param lastOffset inclusive
 * @param minTimestamp epoch millis
 * @param maxTimestamp epoch millis
 * @param compacted whether the cold compactor wrote it to replace a run of objects of its range
 *     (metadata {@code tierlog.compacted.replaces}); its offsets may then be sparse
 */
public record ObjectFooter(
        String key,
        long sizeInBytes,
        String topic,
        int partition,
        long firstOffset,
        long lastOffset,
        long minTimestamp,
        long maxTimestamp,
        long recordCount,
        int formatVersion,
        boolean compacted) {

    /**
     * Whether the object stores {@code batch_txn_state} (format 2 on). Without it, the outcome of a
     * transactional batch whose marker lies in a later object is unknown ({@code tierlog verify}
     * reports such objects).
     */
    public boolean hasTxnStates() {
        return formatVersion >= ColdLayout.TXN_STATE_FORMAT_VERSION;
    }

    /** The footer of an object as offloaded (not compacted). */
    public ObjectFooter(
            String key,
            long sizeInBytes,
            String topic,
            int partition,
            long firstOffset,
            long lastOffset,
            long minTimestamp,
            long maxTimestamp,
            long recordCount,
            int formatVersion) {
        this(
                key,
                sizeInBytes,
                topic,
                partition,
                firstOffset,
                lastOffset,
                minTimestamp,
                maxTimestamp,
                recordCount,
                formatVersion,
                false);
    }

    /**
     * Reads the footer of object {@code key} of {@code size} bytes.
     *
     * @throws ObjectStoreException naming the key if the object cannot be read, is not Parquet, or
     *     lacks (or has unreadable) tierlog metadata, or has a newer format version
     */
    public static ObjectFooter read(ObjectStore store, String key, long size) throws IOException {
        Map<String, String> kv;
        try (ParquetFileReader r =
                ParquetFileReader.open(
                        new ObjectStoreInputFile(store, key, size),
                        ParquetReadOptions.builder(new PlainParquetConfiguration()).build())) {
            kv = r.getFooter().getFileMetaData().getKeyValueMetaData();
        } catch (ObjectStoreException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new ObjectStoreException(key, "cannot read Parquet footer: " + e, e);
        }
        try {
            int version = Integer.parseInt(kv.get(ColdLayout.META_FORMAT_VERSION));
            if (version > ColdLayout.FORMAT_VERSION) {
                throw new ObjectStoreException(
                        key, "unsupported cold object format version " + version);
            }
            ObjectFooter f =
                    new ObjectFooter(
                            key,
                            size,
                            required(kv, ColdLayout.META_TOPIC),
                            Integer.parseInt(required(kv, ColdLayout.META_PARTITION)),
                            Long.parseLong(required(kv, ColdLayout.META_FIRST_OFFSET)),
                            Long.parseLong(required(kv, ColdLayout.META_LAST_OFFSET)),
                            Long.parseLong(required(kv, ColdLayout.META_MIN_TIMESTAMP)),
                            Long.parseLong(required(kv, ColdLayout.META_MAX_TIMESTAMP)),
                            Long.parseLong(required(kv, ColdLayout.META_RECORD_COUNT)),
                            version,
                            kv.containsKey(ColdLayout.META_COMPACTED_REPLACES));
            if (f.firstOffset() < 0 || f.lastOffset() < f.firstOffset()) {
                throw new ObjectStoreException(
                        key, "bad offset range " + f.firstOffset() + ".." + f.lastOffset());
            }
            String replaces = kv.get(ColdLayout.META_COMPACTED_REPLACES);
            if (replaces != null
                    && !replaces.trim().equals(f.firstOffset() + "-" + f.lastOffset())) {
                throw new ObjectStoreException(
                        key,
                        ColdLayout.META_COMPACTED_REPLACES
                                + " is '"
                                + replaces
                                + "', not the object's range "
                                + f.firstOffset()
                                + "-"
                                + f.lastOffset());
            }
            return f;
        } catch (NumberFormatException | NullPointerException e) {
            throw new ObjectStoreException(key, "missing or bad tierlog metadata: " + e, e);
        }
    }

    private static String required(Map<String, String> kv, String k) {
        String v = kv.get(k);
        if (v == null) {
            throw new NullPointerException(k);
        }
        return v.trim();
    }
}
