package io.tierlog.iceberg;

import io.tierlog.catalog.Catalog;
import io.tierlog.cold.ObjectStore;
import io.tierlog.common.Config;
import io.tierlog.common.Time;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What the topic tables run on.
 *
 * @param config the server configuration ({@code iceberg.*}, {@code s3.bucket}, {@code s3.prefix})
 * @param catalog tierlog's catalog: the truth of which objects are committed
 * @param store the object store holding the cold objects (and the table metadata)
 * @param bucket the bucket {@code store} writes to, for {@code s3://<bucket>/<key>} paths
 * @param dataDir the data dir ({@code <data.dir>/iceberg.db} is the default catalog)
 * @param topics each topic's effective config
 * @param time the clock
 */
public record TableSetup(
        Config config,
        Catalog catalog,
        ObjectStore store,
        String bucket,
        Path dataDir,
        TopicSettingsSource topics,
        Time time) {
    public TableSetup {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(catalog, "catalog");
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(topics, "topics");
        Objects.requireNonNull(time, "time");
    }
}
