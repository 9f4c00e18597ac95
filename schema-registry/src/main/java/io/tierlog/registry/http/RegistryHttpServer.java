package io.tierlog.registry.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.tierlog.registry.CatalogSchemaRegistry;
import io.tierlog.registry.SchemaRegistryException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Confluent's Schema Registry REST API over a {@link CatalogSchemaRegistry}, on the JDK's HTTP
 * server: what Confluent's serializers, deserializers and admin clients call (see {@link Routes}
 * and {@link SettingsRoutes}). Responses are {@code application/vnd.schemaregistry.v1+json};
 * requests may be sent as that, {@code application/vnd.schemaregistry+json}, {@code
 * application/json}, {@code application/octet-stream} or without a content type (others get 415). A
 * refused request gets Confluent's error body {@code {"error_code": 40401, "message": "..."}} with
 * the HTTP status of the code's first three digits; an unexpected failure is {@code 500} with error
 * code 500 (logged). Requests are served on a small pool of daemon threads, since a request may
 * wait for the catalog.
 *
 * <p>Thread-safe; {@link #close()} stops the server (the registry stays open: its owner closes it).
 */
public final class RegistryHttpServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RegistryHttpServer.class);

    /** Confluent's response content type. */
    public static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

    /** Request bodies larger than this are refused (413): no schema is that large. */
    static final int MAX_BODY_BYTES = 16 << 20;

    static final int THREADS = 8;

    private static final Set<String> ACCEPTED_TYPES =
            Set.of(
                    "application/vnd.schemaregistry.v1+json",
                    "application/vnd.schemaregistry+json",
                    "application/json",
                    "application/octet-stream");

    private final HttpServer server;
    private final ExecutorService executor;
    private final Routes routes;
    private final java.util.concurrent.atomic.AtomicBoolean closed =
            new java.util.concurrent.atomic.AtomicBoolean();

    private RegistryHttpServer(HttpServer server, ExecutorService executor, Routes routes) {
        this.server = server;
        this.executor = executor;
        this.routes = routes;
    }

    /**
     * Starts serving {@code registry} on {@code listen}: {@code host:port}, port 0 for any free one
     * (see {@link #port()}).
     *
     * @throws IllegalArgumentException for a malformed {@code listen}
     * @throws IOException when the address cannot be bound
     */
    public static RegistryHttpServer start(CatalogSchemaRegistry registry, String listen)
            throws IOException {
        int colon = listen.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException(
                    "schema registry listen address: expected host:port, got '" + listen + "'");
        }
        String host = listen.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(listen.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "schema registry listen address: bad port in '" + listen + "'", e);
        }
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 64);
        AtomicInteger n = new AtomicInteger();
        ExecutorService executor =
                Executors.newFixedThreadPool(
                        THREADS,
                        r -> {
                            Thread t =
                                    new Thread(r, "tierlog-schema-registry-" + n.incrementAndGet());
                            t.setDaemon(true);
                            return t;
                        });
        RegistryHttpServer s = new RegistryHttpServer(server, executor, new Routes(registry));
        server.createContext("/", s::serve);
        server.setExecutor(executor);
        server.start();
        return s;
    }

    /** The bound port (the chosen one when started with port 0). */
    public int port() {
        return server.getAddress().getPort();
    }

    /** The base URI clients use, for example {@code http://127.0.0.1:8081}. */
    public URI uri() {
        InetSocketAddress a = server.getAddress();
        String host = a.getAddress().getHostAddress();
        if (host.contains(":")) {
            host = "[" + host + "]";
        }
        return URI.create("http://" + host + ":" + a.getPort());
    }

    private void serve(HttpExchange exchange) throws IOException {
        int status;
        String body;
        try {
            checkContentType(exchange.getRequestHeaders().getFirst("Content-Type"));
            Request request =
                    new Request(
                            exchange.getRequestMethod(),
                            exchange.getRequestURI().getRawPath(),
                            exchange.getRequestURI().getRawQuery(),
                            readBody(exchange.getRequestBody()));
            Routes.Response response = routes.handle(request);
            status = response.status();
            body = response.body();
        } catch (SchemaRegistryException e) {
            status = e.httpStatus();
            body = Json.write(Json.error(e.errorCode(), e.getMessage()));
        } catch (RuntimeException e) {
            LOG.warn(
                    "schema registry: {} {} failed",
                    exchange.getRequestMethod(),
                    exchange.getRequestURI(),
                    e);
            status = 500;
            body = Json.write(Json.error(500, "Internal Server Error: " + e));
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
        try (OutputStream out = exchange.getResponseBody()) {
            if (exchange.getRequestMethod().equalsIgnoreCase("HEAD")) {
                exchange.sendResponseHeaders(status, -1);
            } else {
                exchange.sendResponseHeaders(status, bytes.length);
                out.write(bytes);
            }
        }
    }

    private static void checkContentType(String contentType) {
        if (contentType == null || contentType.isBlank()) {
            return;
        }
        String type = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        if (!ACCEPTED_TYPES.contains(type)) {
            throw new SchemaRegistryException(415, "HTTP 415 Unsupported Media Type: " + type);
        }
    }

    private static String readBody(InputStream in) throws IOException {
        byte[] b = in.readNBytes(MAX_BODY_BYTES + 1);
        if (b.length > MAX_BODY_BYTES) {
            throw new SchemaRegistryException(
                    413, "Request body larger than " + MAX_BODY_BYTES + " bytes");
        }
        return new String(b, StandardCharsets.UTF_8);
    }

    /** Stops serving (requests in flight are cut off). Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        server.stop(0);
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
