package io.tierlog.engine;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Serves a {@link PrometheusMeterRegistry} in the Prometheus text format on {@code GET /metrics}
 * (JDK HTTP server, one daemon thread). Any other path answers 404, any other method 405.
 *
 * <p>Thread-safe; {@link #close()} stops the server.
 */
final class MetricsEndpoint implements Closeable {
    private final HttpServer server;
    private final ExecutorService executor;

    private MetricsEndpoint(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Starts serving {@code registry} on {@code listen} ({@code host:port}, port 0 = any free).
     *
     * @throws IllegalArgumentException for a malformed address
     */
    static MetricsEndpoint start(String listen, PrometheusMeterRegistry registry)
            throws IOException {
        int colon = listen.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("metrics.listen: expected host:port, got " + listen);
        }
        String host = listen.substring(0, colon);
        int port;
        try {
            port = Integer.parseInt(listen.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("metrics.listen: bad port in " + listen, e);
        }
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
        ExecutorService executor =
                Executors.newSingleThreadExecutor(
                        r -> {
                            Thread t = new Thread(r, "tierlog-metrics-http");
                            t.setDaemon(true);
                            return t;
                        });
        server.setExecutor(executor);
        server.createContext("/", ex -> handle(ex, registry));
        server.start();
        return new MetricsEndpoint(server, executor);
    }

    private static void handle(HttpExchange ex, PrometheusMeterRegistry registry)
            throws IOException {
        try (ex) {
            if (!ex.getRequestURI().getPath().equals("/metrics")) {
                ex.sendResponseHeaders(404, -1);
                return;
            }
            if (!ex.getRequestMethod().equals("GET") && !ex.getRequestMethod().equals("HEAD")) {
                ex.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            if (ex.getRequestMethod().equals("HEAD")) {
                ex.sendResponseHeaders(200, -1);
                return;
            }
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** The bound port. */
    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
