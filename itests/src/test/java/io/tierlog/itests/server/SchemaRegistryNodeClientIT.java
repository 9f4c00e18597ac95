package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Confluent's own Node.js registry client {@code @confluentinc/schemaregistry} 1.10.1 with kafkajs
 * 2.2.4 (clients this project did not write) against a real tierlog server and its built-in
 * registry: {@code src/test/node/schemaregistry_check.js} registers Avro, JSON Schema and Protobuf
 * schemas, produces with the client's serializers through the Kafka port, consumes and decodes with
 * its deserializers, and provokes a refused incompatible schema and the not-found errors; it prints
 * what it saw as one JSON object, checked here.
 *
 * <p>The node project's dependencies are installed by {@code npm ci} ({@code .ci/run} does it; this
 * test does it when they are missing). Skipped with a reason only when node or npm is not
 * installed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SchemaRegistryNodeClientIT {
    private static final Path PROJECT = Path.of("src/test/node").toAbsolutePath();
    private static final int COUNT = 50;

    private ServerHarness server;
    private JsonNode out;

    @BeforeAll
    void runClient(@TempDir Path dir) throws Exception {
        assumeTrue(
                Proc.available("node") && Proc.available("npm"),
                "node and npm are not installed (apt-get install nodejs npm)");
        if (!Files.isDirectory(PROJECT.resolve("node_modules/@confluentinc/schemaregistry"))) {
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
        server = new ServerHarness(dir.resolve("data"), Map.of()); // registry on a free port
        String registry = server.server().schemaRegistryUri().orElseThrow().toString();
        Proc.Result r =
                Proc.run(
                        List.of(
                                "node",
                                PROJECT.resolve("schemaregistry_check.js").toString(),
                                server.bootstrap(),
                                registry,
                                "sr",
                                Integer.toString(COUNT)),
                        null,
                        Duration.ofMinutes(3));
        String json = r.stdout().strip();
        assertThat(json).as("the client printed nothing; stderr: " + r.stderr()).isNotEmpty();
        out = new ObjectMapper().readTree(json.substring(json.lastIndexOf('\n') + 1));
        assertThat(r.exit())
                .as("the client failed: " + r.stderr() + "\nsaw so far: " + json)
                .isZero();
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void everyBatchTheSerializersProducedIsAcknowledged() {
        for (String format : List.of("avro", "json", "protobuf")) {
            JsonNode p = out.at("/produced/" + format);
            assertThat(p.get("records").asInt()).as(format).isPositive();
            p.get("errorCodes").forEach(c -> assertThat(c.asInt()).as(format).isZero());
        }
    }

    @Test
    void avroRecordsOfTwoVersionsComeBackDecodedWithTheirWriterSchemas() {
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < COUNT; i++) {
            expected.add("{\"id\":\"p" + i + "\",\"amount\":" + (i + 0.5) + "}");
        }
        for (int i = COUNT; i < 2 * COUNT; i++) {
            expected.add(
                    "{\"id\":\"p" + i + "\",\"amount\":" + (i + 0.5) + ",\"currency\":\"CHF\"}");
        }
        assertThat(texts(out.at("/consumed/avro"))).isEqualTo(expected);
        assertThat(out.at("/versions/avro").toString()).isEqualTo("[1,2]");
    }

    @Test
    void jsonSchemaRecordsComeBackDecodedAndValidated() {
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < COUNT; i++) {
            expected.add("{\"customerId\":" + i + ",\"name\":\"n" + i + "\"}");
        }
        assertThat(texts(out.at("/consumed/json"))).isEqualTo(expected);
    }

    @Test
    void protobufRecordsComeBackAsTheSecondMessageOfTheFile() {
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < COUNT; i++) {
            expected.add(
                    "{\"typeName\":\"tierlog.it.Order\",\"id\":\"o"
                            + i
                            + "\",\"qty\":\""
                            + i
                            + "\",\"source\":\"node\"}");
        }
        expected.add(
                "{\"typeName\":\"tierlog.it.Order\",\"id\":\"auto\",\"qty\":\"7\","
                        + "\"source\":\"descriptor\"}");
        assertThat(texts(out.at("/consumed/protobuf"))).isEqualTo(expected);
    }

    @Test
    void valuesCarryConfluentsWireHeaderWithTheRegisteredIds() {
        for (String format : List.of("avro", "json", "protobuf")) {
            assertThat(out.at("/headers/" + format + "/magic").asInt()).as(format).isZero();
        }
        assertThat(out.at("/headers/avro/id").asInt()).isEqualTo(out.at("/ids/avroV1").asInt());
        assertThat(out.at("/headers/json/id").asInt()).isEqualTo(out.at("/ids/json").asInt());
        assertThat(out.at("/headers/protobuf/id").asInt())
                .isEqualTo(out.at("/ids/protobufText").asInt());
        // message indexes [1]: count 1 then index 1, both zigzag varints, so the byte 2 first
        assertThat(out.at("/headers/protobuf/next").asInt()).isEqualTo(2);
    }

    @Test
    void idsAreGlobalAndTheSameSchemaAgainGetsItsExistingId() {
        JsonNode ids = out.get("ids");
        Set<Integer> distinct =
                new HashSet<>(
                        List.of(
                                ids.get("avroV1").asInt(),
                                ids.get("avroV2").asInt(),
                                ids.get("json").asInt(),
                                ids.get("protobufText").asInt()));
        assertThat(distinct).hasSize(4).allMatch(id -> id > 0);
        assertThat(ids.get("avroV1Again").asInt()).isEqualTo(ids.get("avroV1").asInt());
    }

    @Test
    void theDescriptorTheJsSerializerAutoRegistersIsAcceptedUnderTheSubject() {
        // the JS serde has no .proto parser: it registers a base64 FileDescriptorProto, which the
        // registry stores as .proto text (its record's decoding is checked with the others)
        List<Integer> underSubject = new ArrayList<>();
        out.get("protobufSubjectIds").forEach(n -> underSubject.add(n.asInt()));
        assertThat(underSubject)
                .contains(out.at("/ids/protobufText").asInt(), out.at("/ids/protobufAuto").asInt());
    }

    @Test
    void anIncompatibleSchemaIsRefusedWith409InEachFormatNamingTheRuleAndWhere() {
        // the rule that broke and where: Avro's resolution names the field by position, as
        // Confluent's (also Avro's SchemaCompatibility) does
        Map<String, List<String>> brokenRule =
                Map.of(
                        "avro", List.of("TYPE_MISMATCH", "/fields/1/type"),
                        "json", List.of("TYPE_CHANGED", "customerId"),
                        "protobuf", List.of("FIELD_SCALAR_KIND_CHANGED", "qty"));
        brokenRule.forEach(
                (format, rule) -> {
                    JsonNode r = out.at("/refused/" + format);
                    assertThat(r.get("refused").asBoolean()).as(r.toString()).isTrue();
                    assertThat(r.get("restError").asBoolean()).as(r.toString()).isTrue();
                    assertThat(r.get("status").asInt()).as(r.toString()).isEqualTo(409);
                    assertThat(r.get("errorCode").asInt()).as(r.toString()).isEqualTo(409);
                    assertThat(r.get("message").asText()).as(r.toString()).contains(rule);
                });
        assertThat(out.at("/compatible/avroBad").asBoolean()).isFalse();
        assertThat(out.at("/compatible/avroV2").asBoolean()).isTrue();
    }

    @Test
    void notFoundAndInvalidSchemaErrorsCarryConfluentsCodes() {
        assertError("unknownSubject", 404, 40401);
        assertError("unknownVersion", 404, 40402);
        assertError("unknownId", 404, 40403);
        assertError("invalidSchema", 422, 42201);
    }

    @Test
    void compatibilityNoneOnTheSubjectAcceptsTheSchemaBackwardRefused() {
        assertThat(out.get("compatibilityNone").asText()).isEqualTo("NONE");
        JsonNode r = out.get("acceptedUnderNone");
        assertThat(r.get("refused").asBoolean()).as(r.toString()).isFalse();
        assertThat(r.get("value").asInt()).isPositive();
    }

    @Test
    void subjectsListsWhatWasRegistered() {
        assertThat(texts(out.get("subjects")))
                .contains("\"sr-avro-value\"", "\"sr-json-value\"", "\"sr-protobuf-value\"")
                .doesNotContain("\"sr-invalid-value\"");
    }

    private void assertError(String name, int status, int code) {
        JsonNode r = out.at("/errors/" + name);
        assertThat(r.get("refused").asBoolean()).as(name + ": " + r).isTrue();
        assertThat(r.get("status").asInt()).as(name + ": " + r).isEqualTo(status);
        assertThat(r.get("errorCode").asInt()).as(name + ": " + r).isEqualTo(code);
    }

    private static List<String> texts(JsonNode array) {
        List<String> l = new ArrayList<>();
        array.forEach(n -> l.add(n.toString()));
        return l;
    }
}
