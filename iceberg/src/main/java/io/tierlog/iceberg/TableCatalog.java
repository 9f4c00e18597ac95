package io.tierlog.iceberg;

import java.io.Closeable;
import java.io.IOException;
import java.util.Optional;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;

/**
 * An opened Iceberg catalog (JDBC or REST) with our FileIO, or the reason there is none (a
 * read-only open of a data dir without {@code iceberg.db}). Thread-safe as Iceberg's catalogs are.
 *
 * @param catalog the catalog, null when {@code missing} is present
 * @param namespaces the same catalog's namespace operations, null with it
 * @param io the FileIO every table of the catalog uses
 * @param describe what to call the catalog in a message
 * @param missing why no catalog could be opened
 * @param closer releases the catalog's connections
 */
record TableCatalog(
        Catalog catalog,
        SupportsNamespaces namespaces,
        ObjectStoreFileIO io,
        String describe,
        Optional<String> missing,
        Closeable closer)
        implements Closeable {

    static TableCatalog missing(ObjectStoreFileIO io, String describe, String why) {
        return new TableCatalog(null, null, io, describe, Optional.of(why), () -> {});
    }

    boolean available() {
        return missing.isEmpty();
    }

    @Override
    public void close() {
        try {
            closer.close();
        } catch (IOException | RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(TableCatalog.class)
                    .debug("closing iceberg catalog {} failed", describe, e);
        }
    }
}
