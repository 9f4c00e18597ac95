package io.tierlog.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.Config;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code schema.registry.listen}: the server serves the engine's registry (stored in the catalog,
 * so registrations outlive a restart), stops it on close, binds nothing when it is empty, and
 * refuses a taken port before opening storage, naming the option.
 */
class SchemaRegistryEndpointIT {
    static final String SCHEMA =
            "{\"schema\":\"{\\\"type\\\":\\\"record\\\",\\\"name\\\":\\\"T\\\",\\\"fields\\\":"
                    + "[{\\\"name\\\":\\\"a\\\",\\\"type\\\":\\\"int\\\"}]}\"}";

    @TempDir Path dir;
    final HttpClient http = HttpClient.newHttpClient();

    Config config(String registryListen) {
        Map<String, String> s = new HashMap<>();
        s.put("data.dir", dir.resolve("data").toString());
        s.put("listeners", "PLAINTEXT://127.0.0.1:0");
        s.put("tiered.enabled", "false");
        s.put("num.network.threads", "1");
        s.put("schema.registry.listen", registryListen);
        return Config.of(s);
    }

    HttpResponse<String> send(URI base, String method, String path, String body) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create(base + path))
                        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                        .method(
                                method,
                                body == null
                                        ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theRegistryIsServedAndItsSchemasOutliveARestartAndCloseStopsIt() throws Exception {
        URI first;
        try (TierlogServer server = TierlogServer.start(config("127.0.0.1:0"))) {
            first = server.schemaRegistryUri().orElseThrow();
            HttpResponse<String> r = send(first, "POST", "/subjects/t-value/versions", SCHEMA);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("{\"id\":1}");
            assertThat(server.engine().schemaRegistry().registeredUnder("t-value", 1)).isTrue();
        }
        assertThatThrownBy(() -> send(first, "GET", "/subjects", null))
                .as("closed with the server")
                .isInstanceOf(ConnectException.class);
        try (TierlogServer server = TierlogServer.start(config("127.0.0.1:0"))) {
            URI again = server.schemaRegistryUri().orElseThrow();
            assertThat(send(again, "GET", "/subjects", null).body()).isEqualTo("[\"t-value\"]");
            assertThat(send(again, "GET", "/schemas/ids/1", null).body())
                    .contains("\"name\\\":\\\"T");
        }
    }

    @Test
    void anEmptyListenServesNoRegistry() throws Exception {
        try (TierlogServer server = TierlogServer.start(config(""))) {
            assertThat(server.schemaRegistryUri()).isEmpty();
            assertThat(server.engine().schemaRegistry().subjects(null, false)).isEmpty();
        }
    }

    @Test
    void aTakenRegistryPortFailsTheStartNamingTheOptionBeforeStorageOpens() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(
                            () -> TierlogServer.start(config("127.0.0.1:" + taken.getLocalPort())))
                    .isInstanceOf(java.net.BindException.class)
                    .hasMessageContaining("schema.registry.listen");
        }
        assertThat(dir.resolve("data/catalog.db")).as("storage not opened").doesNotExist();
        assertThat(Files.exists(dir.resolve("data/log/.lock"))).isTrue();
    }

    @Test
    void aMalformedListenIsRefusedByTheOptionsValidator() {
        assertThatThrownBy(() -> TierlogServer.start(config("nohostport")))
                .hasMessageContaining("schema.registry.listen");
    }
}
