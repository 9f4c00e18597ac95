package io.tierlog.iceberg;

import io.tierlog.cold.ColdTierOptions;
import io.tierlog.cold.ObjectKeys;
import io.tierlog.common.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.SessionCatalog;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.HTTPClient;
import org.apache.iceberg.rest.RESTSessionCatalog;
import org.apache.iceberg.rest.RESTUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the Iceberg catalog that {@code iceberg.catalog.*} names, always with tierlog's {@link
 * ObjectStoreFileIO}: Iceberg's JdbcCatalog over SQLite ({@code <data.dir>/iceberg.db} by default;
 * WAL, synchronous FULL, a busy timeout, one connection) or PostgreSQL, or a REST catalog. Extra
 * catalog properties pass through from keys {@code iceberg.catalog.properties.<name>} (for example
 * {@code iceberg.catalog.properties.jdbc.user}). A read-only open writes nothing: SQLite is opened
 * with {@code mode=ro} (and {@code immutable=1} when no writer has it open), the catalog tables are
 * neither created nor migrated, and a missing {@code iceberg.db} is reported, not created.
 * Stateless, so thread-safe.
 */
final class TableCatalogs {
    private static final Logger LOG = LoggerFactory.getLogger(TableCatalogs.class);
    static final String PASS_THROUGH = "iceberg.catalog.properties.";

    private TableCatalogs() {}

    /** The warehouse: {@code iceberg.warehouse}, or {@code s3://<bucket>/<s3.prefix>/iceberg}. */
    static String warehouse(TableSetup setup) {
        String w = setup.config().get(IcebergOptions.WAREHOUSE);
        if (!w.isBlank()) {
            return w.endsWith("/") ? w.substring(0, w.length() - 1) : w;
        }
        String prefix = ObjectKeys.normalizePrefix(ColdTierOptions.from(setup.config()).prefix());
        return "s3://" + setup.bucket() + "/" + prefix + "iceberg";
    }

    static TableCatalog open(TableSetup setup, ObjectStoreFileIO io, boolean readOnly) {
        Config config = setup.config();
        String name = config.get(IcebergOptions.CATALOG_NAME);
        Map<String, String> props = new HashMap<>();
        props.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse(setup));
        for (Map.Entry<String, String> e : config.asMap().entrySet()) {
            if (e.getKey().startsWith(PASS_THROUGH)) {
                props.put(e.getKey().substring(PASS_THROUGH.length()), e.getValue());
            }
        }
        // Scan and commit reports of every round: logged at INFO (or posted to a REST server)
        // by default, a cost per round nobody reads; a pass-through setting turns them back on.
        props.putIfAbsent(CatalogProperties.METRICS_REPORTER_IMPL, QuietReporter.class.getName());
        props.putIfAbsent("rest-metrics-reporting-enabled", "false");
        if (config.get(IcebergOptions.CATALOG_TYPE) == IcebergOptions.CatalogType.REST) {
            return rest(name, config.get(IcebergOptions.CATALOG_URI), props, io);
        }
        String uri = config.get(IcebergOptions.CATALOG_URI);
        if (uri.isBlank()) {
            uri = "jdbc:sqlite:" + setup.dataDir().resolve("iceberg.db");
        }
        boolean sqlite = uri.startsWith("jdbc:sqlite:");
        if (sqlite) {
            Path db = sqlitePath(uri);
            if (readOnly) {
                if (!Files.exists(db)) {
                    return TableCatalog.missing(io, db.toString(), "no iceberg catalog at " + db);
                }
                uri = readOnlyUrl(db);
            } else {
                props.putIfAbsent("jdbc.journal_mode", "WAL");
                props.putIfAbsent("jdbc.synchronous", "FULL");
                props.putIfAbsent("jdbc.busy_timeout", "10000");
                props.putIfAbsent(CatalogProperties.CLIENT_POOL_SIZE, "1");
                try {
                    Files.createDirectories(db.toAbsolutePath().getParent());
                } catch (java.io.IOException e) {
                    throw new TableException("cannot create the directory of " + db, e);
                }
            }
        }
        props.put(CatalogProperties.URI, uri);
        if (readOnly) {
            props.put("jdbc.init-catalog-tables", "false");
            props.remove("jdbc.schema-version");
        } else {
            props.putIfAbsent("jdbc.schema-version", "V1");
        }
        JdbcCatalog catalog = new JdbcCatalog(p -> io, null, !readOnly);
        catalog.initialize(name, props);
        String describe = sqlite ? sqlitePath(uri).toString() : withoutParams(uri);
        LOG.debug("iceberg catalog {} opened{}", describe, readOnly ? " read-only" : "");
        return new TableCatalog(
                catalog, catalog, io, describe, java.util.Optional.empty(), catalog::close);
    }

    private static TableCatalog rest(
            String name, String uri, Map<String, String> props, ObjectStoreFileIO io) {
        if (uri.isBlank()) {
            throw new TableException("iceberg.catalog.type=rest needs iceberg.catalog.uri");
        }
        props.put(CatalogProperties.URI, uri);
        RESTSessionCatalog session =
                new RESTSessionCatalog(
                        c ->
                                HTTPClient.builder(c)
                                        .uri(c.get(CatalogProperties.URI))
                                        .withHeaders(RESTUtil.configHeaders(c))
                                        .build(),
                        (ctx, p) -> io);
        session.initialize(name, props);
        org.apache.iceberg.catalog.Catalog catalog =
                session.asCatalog(SessionCatalog.SessionContext.createEmpty());
        return new TableCatalog(
                catalog,
                (org.apache.iceberg.catalog.SupportsNamespaces) catalog,
                io,
                withoutParams(uri),
                java.util.Optional.empty(),
                session);
    }

    static Path sqlitePath(String uri) {
        String s = uri.substring("jdbc:sqlite:".length());
        int q = s.indexOf('?');
        if (q >= 0) {
            s = s.substring(0, q);
        }
        if (s.startsWith("file:")) {
            return Path.of(
                    java.net.URI.create(s.startsWith("file://") ? s : "file://" + s.substring(5)));
        }
        return Path.of(s);
    }

    /** As tierlog's own catalog opens SQLite read-only: no side file is ever created. */
    static String readOnlyUrl(Path db) {
        boolean wal = Files.exists(Path.of(db + "-wal"));
        boolean shm = Files.exists(Path.of(db + "-shm"));
        if (wal && shm) {
            return "jdbc:sqlite:" + db.toAbsolutePath().toUri() + "?mode=ro";
        }
        return "jdbc:sqlite:" + db.toAbsolutePath().toUri() + "?mode=ro&immutable=1";
    }

    private static String withoutParams(String uri) {
        int q = uri.indexOf('?');
        return q < 0 ? uri : uri.substring(0, q);
    }

    /** Drops Iceberg's scan and commit reports (loaded by name by the catalog). Stateless. */
    public static final class QuietReporter implements org.apache.iceberg.metrics.MetricsReporter {
        /** For the catalog's reflective construction. */
        public QuietReporter() {}

        @Override
        public void report(org.apache.iceberg.metrics.MetricsReport report) {}
    }
}
