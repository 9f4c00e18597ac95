package io.tierlog.compactor.testing;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.ParquetLogReader;
import io.tierlog.cold.S3ObjectStore;
import io.tierlog.common.Config;
import io.tierlog.s3.embedded.EmbeddedS3Server;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * A real cold tier for tests: an in-process S3 server (s3proxy over HTTP), an {@link S3ObjectStore}
 * talking to it, and a SQLite catalog file. Not thread-safe to set up; the parts are.
 */
public final class ColdTierFixture implements AutoCloseable {
    public final EmbeddedS3Server s3;
    public final ObjectStore store;
    public final Catalog catalog;
    public final String catalogUrl;

    public ColdTierFixture(Path dir) throws IOException {
        this.s3 = EmbeddedS3Server.start(dir.resolve("s3"));
        this.store = S3ObjectStore.create(s3.clientConfig());
        this.catalogUrl = "jdbc:sqlite:" + dir.resolve("catalog.db");
        this.catalog = Catalog.open(catalogUrl);
    }

    /** The S3 client settings plus {@code extra}. */
    public Config config(java.util.Map<String, String> extra) {
        return s3.clientConfig().with(extra);
    }

    /** Every batch of the partition as the cold tier returns it, object by object. */
    public List<RecordBatch> readBack(String topic, int partition) throws IOException {
        return readBack(store, catalog, topic, partition);
    }

    public static List<RecordBatch> readBack(
            ObjectStore store, Catalog catalog, String topic, int partition) throws IOException {
        List<RecordBatch> out = new ArrayList<>();
        for (ColdObject o : catalog.objects(topic, partition)) {
            ParquetLogReader reader = new ParquetLogReader(store, o.key(), o.sizeInBytes());
            long next = o.firstOffset();
            while (next <= o.lastOffset()) {
                MemoryRecords records = reader.read(next, 1 << 20);
                long before = next;
                for (RecordBatch b : records.batches()) {
                    if (b.lastOffset() >= next) {
                        out.add(b);
                        next = b.lastOffset() + 1;
                    }
                }
                if (next == before) {
                    break;
                }
            }
        }
        return out;
    }

    @Override
    public void close() throws IOException {
        catalog.close();
        store.close();
        s3.close();
    }
}
