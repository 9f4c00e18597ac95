package io.tierlog.itests.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The Confluent Schema Registry REST calls the registry tests make, over plain HTTP to one registry
 * on loopback, as a client that knows only the documented API would make them. Answers are the
 * status and the parsed JSON body. Thread-safe (the JDK client is).
 */
final class RegistryHttp {
    static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** An answer of the registry: the HTTP status and its JSON body. */
    record Answer(int status, JsonNode body) {
        /** The Confluent {@code error_code} of an error answer, or 0. */
        int errorCode() {
            return body.path("error_code").asInt(0);
        }
    }

    private final HttpClient http;
    private final String base;

    RegistryHttp(int port) {
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        this.base = "http://127.0.0.1:" + port;
    }

    /** POST /subjects/{subject}/versions with an AVRO schema; the registered id on 200. */
    Answer registerAvro(String subject, String schema) throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode().put("schema", schema);
        return send("POST", "/subjects/" + enc(subject) + "/versions", body);
    }

    /** PUT /config/{subject} with a compatibility level. */
    Answer setCompatibility(String subject, String level) throws IOException, InterruptedException {
        return send(
                "PUT",
                "/config/" + enc(subject),
                JSON.createObjectNode().put("compatibility", level));
    }

    Answer get(String path) throws IOException, InterruptedException {
        return send("GET", path, null);
    }

    Answer delete(String path) throws IOException, InterruptedException {
        return send("DELETE", path, null);
    }

    /** Whether the registry answers {@code GET /subjects} with 200 (it is up). */
    boolean up() {
        try {
            return get("/subjects").status() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private Answer send(String method, String path, JsonNode body)
            throws IOException, InterruptedException {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(URI.create(base + path))
                        .timeout(Duration.ofSeconds(20))
                        .header("Accept", CONTENT_TYPE);
        if (body == null) {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            b.header("Content-Type", CONTENT_TYPE)
                    .method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        String text = r.body();
        JsonNode parsed =
                text == null || text.isBlank() ? JSON.createObjectNode() : JSON.readTree(text);
        return new Answer(r.statusCode(), parsed);
    }
}
