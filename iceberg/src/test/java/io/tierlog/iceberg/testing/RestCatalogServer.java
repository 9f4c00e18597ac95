package io.tierlog.iceberg.testing;

import io.tierlog.cold.ObjectStore;
import io.tierlog.iceberg.ObjectStoreFileIO;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * An Iceberg REST catalog server for tests: Iceberg's own servlet and adapter (from {@code
 * iceberg-core:1.11.0:tests}) over a JdbcCatalog on a SQLite file in {@code dir}, served by Jetty
 * on {@code 127.0.0.1} at a free port. The backend reads and writes table metadata at {@code
 * s3://<bucket>/...} through an {@link ObjectStoreFileIO} over {@code store}, so clients and server
 * share the objects. Point a registrar at it with {@code iceberg.catalog.type=rest} and {@code
 * iceberg.catalog.uri=}{@link #uri()}. Thread-safe (Jetty's); close it when done.
 */
public final class RestCatalogServer implements AutoCloseable {
    private final Server server;
    private final JdbcCatalog backend;
    private final URI uri;
    private boolean closed;

    private RestCatalogServer(Server server, JdbcCatalog backend, URI uri) {
        this.server = server;
        this.backend = backend;
        this.uri = uri;
    }

    /**
     * Starts a server whose backend catalog is {@code dir/rest-catalog.db}, holding metadata under
     * {@code warehouse} (an {@code s3://<bucket>/...} location).
     */
    public static RestCatalogServer start(
            ObjectStore store, String bucket, Path dir, String warehouse) throws IOException {
        Files.createDirectories(dir);
        ObjectStoreFileIO io = new ObjectStoreFileIO(store, bucket);
        JdbcCatalog backend = new JdbcCatalog(p -> io, null, true);
        backend.initialize(
                "tierlog",
                Map.of(
                        CatalogProperties.URI,
                        "jdbc:sqlite:" + dir.resolve("rest-catalog.db"),
                        CatalogProperties.WAREHOUSE_LOCATION,
                        warehouse,
                        "jdbc.schema-version",
                        "V1",
                        "jdbc.journal_mode",
                        "WAL",
                        "jdbc.busy_timeout",
                        "10000",
                        CatalogProperties.CLIENT_POOL_SIZE,
                        "1"));
        Server server = new Server(new InetSocketAddress("127.0.0.1", 0));
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        context.addServlet(
                new ServletHolder(new RESTCatalogServlet(new RESTCatalogAdapter(backend))), "/*");
        server.setHandler(context);
        try {
            server.start();
        } catch (Exception e) {
            backend.close();
            throw new IOException("cannot start the REST catalog server: " + e, e);
        }
        int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
        return new RestCatalogServer(server, backend, URI.create("http://127.0.0.1:" + port));
    }

    /** The catalog's base URL (the {@code uri} of a REST catalog client). */
    public URI uri() {
        return uri;
    }

    /** Stops the server (a test's catalog outage). Idempotent. */
    @Override
    public synchronized void close() throws Exception {
        if (closed) {
            return;
        }
        closed = true;
        try {
            server.stop();
        } finally {
            backend.close();
        }
    }
}
