package io.tierlog.engine;

import static io.tierlog.engine.EngineFixture.TP;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetricsEndpointIT {
    @TempDir Path dir;

    @Test
    void prometheusEndpointExposesTierBytesCacheAndS3Metrics() throws Exception {
        try (EngineFixture fx = new EngineFixture(dir);
                TieredLog log =
                        fx.open(
                                Map.of(
                                        "metrics.listen",
                                        "127.0.0.1:0",
                                        "local.retention.bytes",
                                        "1"))) {
            log.createTopic(TP.topic(), 1, Map.of());
            EngineFixture.appendRecords(log, TP, 60, 10, 1_700_000_000_000L);
            log.maintain();
            EngineFixture.get(log.read(TP, 0, 1 << 20));
            EngineFixture.get(log.read(TP, log.latestOffset(TP) - 1, 1 << 20));
            int port = log.metricsPort().orElseThrow();
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> r =
                    http.send(
                            HttpRequest.newBuilder(
                                            URI.create("http://127.0.0.1:" + port + "/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body())
                    .contains(
                            "tierlog_bytes_in_total{tier=\"hot\"}",
                            "tierlog_bytes_in_total{tier=\"cold\"}",
                            "tierlog_bytes_out_total{tier=\"cold\"}",
                            "tierlog_bytes_out_total{tier=\"hot\"}",
                            "tierlog_offload_lag_bytes",
                            "tierlog_cold_cache_hit_ratio",
                            "tierlog_s3_requests_total{op=\"put\"}",
                            "tierlog_s3_errors_total{op=\"get\"}",
                            "tierlog_s3_latency_seconds_count{op=\"get\"}");
            HttpResponse<String> missing =
                    http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/x"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(missing.statusCode()).isEqualTo(404);
        }
    }
}
