package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafkajs 2.2.4 (pure JavaScript, its own protocol code: a client this project had not been tried
 * with) against a real tierlog server: {@code src/test/node/kafkajs_check.js} creates topics with
 * configs, produces gzip batches, consumes in a classic group (JoinGroup / SyncGroup), commits, and
 * runs the admin calls a kafkajs user runs (describeGroups, listGroups, fetchOffsets,
 * fetchTopicOffsets, deleteTopics); it prints what it saw as one JSON object, checked here.
 *
 * <p>The node project's dependencies are installed by {@code npm ci} ({@code .ci/run} does it; this
 * test does it when {@code node_modules} is missing). Skipped with a reason only when node or npm
 * is not installed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkajsIT {
    private static final Path PROJECT = Path.of("src/test/node").toAbsolutePath();
    private static final int COUNT = 300;

    private ServerHarness server;
    private JsonNode out;

    @BeforeAll
    void runKafkajs(@TempDir Path dir) throws Exception {
        assumeTrue(
                Proc.available("node") && Proc.available("npm"),
                "node and npm are not installed (apt-get install nodejs npm)");
        if (!Files.isDirectory(PROJECT.resolve("node_modules/kafkajs"))) {
            Proc.Result ci =
                    Proc.run(
                            List.of(
                                    "npm",
                                    "ci",
                                    "--no-audit",
                                    "--no-fund",
                                    "--prefix",
                                    PROJECT.toString()),
                            null,
                            Duration.ofMinutes(5));
            assertThat(ci.exit()).as("npm ci: " + ci.stderr()).isZero();
        }
        server = new ServerHarness(dir.resolve("data"), Map.of());
        Proc.Result r =
                Proc.run(
                        List.of(
                                "node",
                                PROJECT.resolve("kafkajs_check.js").toString(),
                                server.bootstrap(),
                                "js-topic",
                                "js-group",
                                Integer.toString(COUNT)),
                        null,
                        Duration.ofMinutes(3));
        String json = r.stdout().strip();
        assertThat(json).as("kafkajs printed nothing; stderr: " + r.stderr()).isNotEmpty();
        out = new ObjectMapper().readTree(json.substring(json.lastIndexOf('\n') + 1));
        assertThat(r.exit()).as("kafkajs failed: " + r.stderr() + "\nsaw so far: " + json).isZero();
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void createTopicsWithSegmentBytesIsAcceptedAndDescribed() {
        assertThat(out.at("/createWithSegmentBytes/ok").asBoolean())
                .as(out.get("createWithSegmentBytes").toString())
                .isTrue();
        assertThat(out.get("segmentBytes").asText()).isEqualTo("1048576");
    }

    @Test
    void createTopicsWithRetentionMsIsAccepted() {
        assertThat(out.at("/createWithRetentionMs/ok").asBoolean())
                .as(out.get("createWithRetentionMs").toString())
                .isTrue();
    }

    @Test
    void gzipProduceIsAcknowledgedOnEveryPartitionAndTheGroupReadsEveryRecordOnce() {
        assertThat(out.get("produced")).hasSize(3);
        out.get("produced").forEach(p -> assertThat(p.get("errorCode").asInt()).isZero());
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < COUNT; i++) {
            expected.add("k" + i + "=v" + i + ";kafkajs");
        }
        List<String> consumed = new ArrayList<>();
        out.get("consumed").forEach(n -> consumed.add(n.asText()));
        assertThat(consumed).isEqualTo(expected);
    }

    @Test
    void theClassicGroupProtocolIsWhatKafkajsSpeaks() {
        // the versions kafkajs 2.2.4 chose from our ApiVersions answer
        JsonNode req = out.get("requests");
        assertThat(req.get("JoinGroup").asInt()).isEqualTo(5);
        assertThat(req.get("SyncGroup").asInt()).isEqualTo(3);
        assertThat(req.get("OffsetCommit").asInt()).isEqualTo(5);
        assertThat(req.get("Produce").asInt()).isEqualTo(7);
        assertThat(req.get("Fetch").asInt()).isEqualTo(11);
    }

    @Test
    void describeAndListGroupsShowTheStableGroupWithItsMember() {
        JsonNode g = out.get("describeGroups").get(0);
        assertThat(g.get("groupId").asText()).isEqualTo("js-group");
        assertThat(g.get("errorCode").asInt()).isZero();
        assertThat(g.get("state").asText()).isEqualTo("Stable");
        assertThat(g.get("protocolType").asText()).isEqualTo("consumer");
        assertThat(g.get("protocol").asText()).isEqualTo("RoundRobinAssigner");
        assertThat(g.get("members")).hasSize(1);
        assertThat(g.at("/members/0/clientId").asText()).isEqualTo("kafkajs-it");
        assertThat(g.at("/members/0/hasAssignment").asBoolean()).isTrue();
        assertThat(out.get("listGroups").toString()).contains("\"js-group\"");
        assertThat(out.get("afterLeave").get(0).asText()).isEqualTo("Empty");
    }

    @Test
    void committedOffsetsEqualTheEndOffsetsOfEveryPartition() {
        JsonNode committed = out.get("fetchOffsets");
        JsonNode ends = out.get("topicOffsets");
        assertThat(committed).hasSize(3);
        assertThat(ends).hasSize(3);
        long total = 0;
        for (int p = 0; p < 3; p++) {
            assertThat(committed.get(p).get("partition").asInt()).isEqualTo(p);
            assertThat(ends.get(p).get("low").asText()).isEqualTo("0");
            assertThat(committed.get(p).get("offset").asText())
                    .isEqualTo(ends.get(p).get("high").asText());
            total += Long.parseLong(ends.get(p).get("high").asText());
        }
        assertThat(total).isEqualTo(COUNT);
    }

    @Test
    void deleteTopicsRemovesTheTopic() {
        assertThat(out.at("/deleteTopics/ok").asBoolean())
                .as(out.get("deleteTopics").toString())
                .isTrue();
        assertThat(out.get("topicsAfterDelete").toString())
                .doesNotContain("\"js-topic\"")
                .contains("\"js-topic-retention\"");
    }
}
