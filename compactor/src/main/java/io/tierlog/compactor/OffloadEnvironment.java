package io.tierlog.compactor;

import io.tierlog.catalog.Catalog;
import io.tierlog.cold.ColdTierOptions;
import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.S3ObjectStore;
import io.tierlog.common.Config;
import io.tierlog.common.ConfigException;
import io.tierlog.common.EmbeddedObjectStore;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catalog and object store an offload daemon works with: {@code catalog.url} and {@code
 * s3.endpoint} when set, otherwise the embedded defaults in {@code data.dir} (the SQLite file
 * {@code catalog.db} and an in-process S3 server storing under {@code s3/}), the same ones {@code
 * tierlog serve} uses. Opening refuses a data dir, temp dir or catalog file inside the directory
 * being offloaded, which is never written. When the catalog or the objects live in {@code
 * data.dir}, the data dir is bound to its catalog ({@link io.tierlog.catalog.CatalogBinding}): a
 * missing, empty or foreign catalog is refused at open.
 *
 * <p>Thread-safe once open; {@link #close()} closes everything it opened.
 */
public final class OffloadEnvironment implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(OffloadEnvironment.class);

    private final Config config;
    private final Catalog catalog;
    private final ObjectStore store;
    private final Optional<EmbeddedObjectStore> embeddedS3;
    private final io.tierlog.catalog.CatalogGuard guard;

    private OffloadEnvironment(
            Config config,
            Catalog catalog,
            ObjectStore store,
            Optional<EmbeddedObjectStore> embeddedS3,
            io.tierlog.common.Time time) {
        this.guard = new io.tierlog.catalog.CatalogGuard(catalog, catalog.id(), time::milliseconds);
        this.config = config;
        this.catalog = catalog;
        this.store = store;
        this.embeddedS3 = embeddedS3;
    }

    /**
     * Opens the catalog and the object store {@code config} names.
     *
     * @param readOnlyDir a directory that must not receive any file (the source log dir), if any
     */
    public static OffloadEnvironment open(Config config, Optional<Path> readOnlyDir)
            throws IOException {
        return open(config, readOnlyDir, io.tierlog.common.Time.SYSTEM);
    }

    /** As {@link #open(Config, Optional)}, with the clock of the catalog guard's checks. */
    public static OffloadEnvironment open(
            Config config, Optional<Path> readOnlyDir, io.tierlog.common.Time time)
            throws IOException {
        CompactorOptions options = CompactorOptions.from(config);
        ColdTierOptions cold = ColdTierOptions.from(config);
        boolean embeddedStore = cold.endpoint().isEmpty();
        if (readOnlyDir.isPresent()) {
            Path ro = readOnlyDir.get().toAbsolutePath().normalize();
            if (embeddedStore || !options.catalogUrlSet()) {
                refuseInside(ro, options.dataDir(), "data.dir");
            }
            refuseInside(ro, options.tmpDir(), "offload.tmp.dir");
            String url = options.catalogUrl();
            if (url.startsWith("jdbc:sqlite:")) {
                refuseInside(ro, Path.of(url.substring("jdbc:sqlite:".length())), "catalog.url");
            }
        }
        EmbeddedObjectStore s3 = null;
        ObjectStore store = null;
        Catalog catalog = null;
        try {
            Config effective = config;
            if (embeddedStore) {
                s3 = EmbeddedObjectStore.start(options.dataDir().resolve("s3"));
                effective = config.with(s3.clientConfig().asMap());
                LOG.info("embedded S3 server on {} storing under {}", s3.endpoint(), s3.dir());
            }
            store = S3ObjectStore.create(effective);
            if (embeddedStore || !options.catalogUrlSet()) {
                // data.dir holds the catalog or the objects: bind it to its catalog, so that a
                // lost catalog is refused rather than silently replaced by an empty one.
                catalog =
                        io.tierlog.catalog.CatalogBinding.openBound(
                                options.dataDir().toAbsolutePath().normalize(),
                                options.catalogUrl(),
                                java.util.Map.of());
            } else {
                catalog = Catalog.open(options.catalogUrl());
            }
            return new OffloadEnvironment(effective, catalog, store, Optional.ofNullable(s3), time);
        } catch (IOException | RuntimeException e) {
            closeQuietly(catalog, store, s3);
            throw e;
        }
    }

    private static void refuseInside(Path readOnly, Path candidate, String key) {
        Path p = candidate.toAbsolutePath().normalize();
        if (p.startsWith(readOnly)) {
            throw new ConfigException(
                    key + " " + p + " is inside " + readOnly + ", which offload never writes into");
        }
    }

    private static void closeQuietly(AutoCloseable... closeables) {
        for (AutoCloseable c : closeables) {
            if (c == null) {
                continue;
            }
            try {
                c.close();
            } catch (Exception e) {
                LOG.debug("close failed", e);
            }
        }
    }

    /** The settings with the embedded S3 server's endpoint and credentials filled in. */
    public Config config() {
        return config;
    }

    public Catalog catalog() {
        return catalog;
    }

    public ObjectStore store() {
        return store;
    }

    /**
     * The guard every commit and sweep asks: the catalog must keep the id it had when opened (the
     * data dir's, when it has one) and stay durable.
     */
    public io.tierlog.catalog.CatalogGuard guard() {
        return guard;
    }

    /** The embedded S3 server, when no {@code s3.endpoint} was set. */
    public Optional<EmbeddedObjectStore> embeddedS3() {
        return embeddedS3;
    }

    @Override
    public void close() {
        closeQuietly(catalog, store, embeddedS3.orElse(null));
    }
}
