package io.tierlog.registry.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.DescriptorProtos;
import io.tierlog.catalog.Catalog;
import io.tierlog.registry.CatalogSchemaRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The Confluent REST API over real HTTP (the JDK client on loopback), a real SQLite catalog and the
 * real formats: paths, bodies, content types and Confluent's error codes as clients see them.
 */
class RegistryRestIT {
    static final JsonMapper JSON = JsonMapper.builder().build();
    static final String CT = "application/vnd.schemaregistry.v1+json";

    static final String ORDER_V1 =
            "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"com.acme\",\"fields\":["
                    + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"amount\",\"type\":\"double\"}]}";
    static final String ORDER_V2 =
            "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"com.acme\",\"fields\":["
                    + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"amount\",\"type\":\"double\"},"
                    + "{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
    static final String PROTO =
            "syntax = \"proto3\";\npackage acme;\nmessage Payment {\n  int64 id = 1;\n"
                    + "  string currency = 2;\n}\n";
    static final String JSON_SCHEMA =
            "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},"
                    + "\"name\":{\"type\":\"string\"}}}";

    @TempDir Path dir;
    Catalog catalog;
    CatalogSchemaRegistry registry;
    RegistryHttpServer server;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        catalog = Catalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"));
        registry = CatalogSchemaRegistry.open(catalog);
        server = RegistryHttpServer.start(registry, "127.0.0.1:0");
    }

    @AfterEach
    void stop() {
        server.close();
        registry.close();
        catalog.close();
    }

    record Reply(int status, String contentType, String text) {
        JsonNode json() {
            return JSON.readTree(text);
        }

        int errorCode() {
            return json().get("error_code").asInt();
        }
    }

    Reply send(String method, String path, String body, String contentType) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.uri() + path));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        b.method(
                method,
                body == null
                        ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new Reply(
                r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), r.body());
    }

    Reply get(String path) throws Exception {
        return send("GET", path, null, null);
    }

    Reply post(String path, String body) throws Exception {
        return send("POST", path, body, CT);
    }

    static String body(String schema, String type) {
        ObjectNode n = JSON.createObjectNode();
        n.put("schema", schema);
        if (type != null) {
            n.put("schemaType", type);
        }
        return JSON.writeValueAsString(n);
    }

    @Test
    void anAvroSchemaIsRegisteredAndReadBackByIdSubjectAndVersion() throws Exception {
        Reply reg = post("/subjects/orders-value/versions", body(ORDER_V1, null));
        assertThat(reg.status()).isEqualTo(200);
        assertThat(reg.contentType()).isEqualTo(CT);
        assertThat(reg.json().get("id").asInt()).isEqualTo(1);

        JsonNode byId = get("/schemas/ids/1").json();
        assertThat(byId.get("schema").asString()).isEqualTo(ORDER_V1);
        assertThat(byId.has("schemaType")).as("omitted for AVRO, as Confluent does").isFalse();
        assertThat(get("/schemas/ids/1?fetchMaxId=true").json().get("maxId").asInt()).isEqualTo(1);
        assertThat(get("/schemas/ids/1/schema").text()).isEqualTo(ORDER_V1);

        JsonNode latest = get("/subjects/orders-value/versions/latest").json();
        assertThat(latest.get("subject").asString()).isEqualTo("orders-value");
        assertThat(latest.get("version").asInt()).isEqualTo(1);
        assertThat(latest.get("id").asInt()).isEqualTo(1);
        assertThat(get("/subjects/orders-value/versions/1/schema").text()).isEqualTo(ORDER_V1);
        assertThat(get("/subjects").text()).isEqualTo("[\"orders-value\"]");
        assertThat(get("/subjects/orders-value/versions").text()).isEqualTo("[1]");
        assertThat(get("/schemas/ids/1/versions").text())
                .isEqualTo("[{\"subject\":\"orders-value\",\"version\":1}]");
        assertThat(get("/schemas/ids/1/subjects").text()).isEqualTo("[\"orders-value\"]");
        assertThat(get("/schemas/types").json().values())
                .extracting(JsonNode::asString)
                .containsExactlyInAnyOrder("AVRO", "JSON", "PROTOBUF");

        // the same schema again: the same id and version; a lookup finds it
        assertThat(
                        post("/subjects/orders-value/versions", body(ORDER_V1, null))
                                .json()
                                .get("id")
                                .asInt())
                .isEqualTo(1);
        JsonNode found = post("/subjects/orders-value", body(ORDER_V1, null)).json();
        assertThat(found.get("version").asInt()).isEqualTo(1);
        assertThat(found.get("id").asInt()).isEqualTo(1);
        assertThat(found.get("schema").asString()).isEqualTo(ORDER_V1);
    }

    @Test
    void jsonSchemaAndProtobufCarryTheirTypeAndProtobufIsServedSerializedWhenAsked()
            throws Exception {
        int json =
                post("/subjects/users-value/versions", body(JSON_SCHEMA, "JSON"))
                        .json()
                        .get("id")
                        .asInt();
        int proto =
                post("/subjects/payments-value/versions", body(PROTO, "PROTOBUF"))
                        .json()
                        .get("id")
                        .asInt();
        assertThat(json).isEqualTo(1);
        assertThat(proto).isEqualTo(2);
        assertThat(get("/schemas/ids/1").json().get("schemaType").asString()).isEqualTo("JSON");
        JsonNode p = get("/subjects/payments-value/versions/latest").json();
        assertThat(p.get("schemaType").asString()).isEqualTo("PROTOBUF");
        assertThat(p.get("schema").asString()).contains("message Payment");
        String serialized =
                get("/schemas/ids/2?format=serialized&subject=payments-value")
                        .json()
                        .get("schema")
                        .asString();
        DescriptorProtos.FileDescriptorProto fd =
                DescriptorProtos.FileDescriptorProto.parseFrom(
                        Base64.getDecoder().decode(serialized));
        assertThat(fd.getMessageType(0).getName()).isEqualTo("Payment");
        assertThat(fd.getMessageType(0).getFieldList())
                .extracting(DescriptorProtos.FieldDescriptorProto::getName)
                .containsExactly("id", "currency");
        // format=serialized changes nothing for the other formats, as in Confluent's registry
        assertThat(get("/schemas/ids/1?format=serialized").json().get("schema").asString())
                .isEqualTo(JSON_SCHEMA);
    }

    @Test
    void refusalsCarryConfluentErrorCodesAndStatuses() throws Exception {
        Reply noSubject = get("/subjects/nope/versions");
        assertThat(noSubject.status()).isEqualTo(404);
        assertThat(noSubject.errorCode()).isEqualTo(40401);
        assertThat(noSubject.json().get("message").asString()).contains("nope");

        Reply invalid =
                post("/subjects/s/versions", body("{\"type\":\"record\",\"name\":\"X\"}", null));
        assertThat(invalid.status()).isEqualTo(422);
        assertThat(invalid.errorCode()).isEqualTo(42201);
        Reply badType = post("/subjects/s/versions", body("{}", "XML"));
        assertThat(badType.errorCode()).isEqualTo(42201);

        post("/subjects/s/versions", body(ORDER_V1, null));
        assertThat(get("/subjects/s/versions/7").errorCode()).isEqualTo(40402);
        Reply badVersion = get("/subjects/s/versions/abc");
        assertThat(badVersion.status()).isEqualTo(422);
        assertThat(badVersion.errorCode()).isEqualTo(42202);
        assertThat(get("/schemas/ids/99").errorCode()).isEqualTo(40403);
        assertThat(post("/subjects/s", body(ORDER_V2, null)).errorCode()).isEqualTo(40403);

        Reply level = send("PUT", "/config", "{\"compatibility\":\"SIDEWAYS\"}", CT);
        assertThat(level.status()).isEqualTo(422);
        assertThat(level.errorCode()).isEqualTo(42203);

        Reply unknown = get("/no/such/path");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.errorCode()).isEqualTo(404);
        Reply method = send("PATCH", "/subjects", null, null);
        assertThat(method.status()).isEqualTo(405);
        assertThat(method.errorCode()).isEqualTo(405);
        Reply malformed = post("/subjects/s/versions", "{not json");
        assertThat(malformed.status()).isEqualTo(400);
        assertThat(malformed.errorCode()).isEqualTo(400);
        Reply mediaType = send("POST", "/subjects/s/versions", body(ORDER_V1, null), "text/xml");
        assertThat(mediaType.status()).isEqualTo(415);
        assertThat(mediaType.contentType()).isEqualTo(CT);
    }

    @Test
    void deletesGoSoftThenPermanentOverTheApi() throws Exception {
        send("PUT", "/config/s", "{\"compatibility\":\"NONE\"}", CT);
        post("/subjects/s/versions", body(ORDER_V1, null));
        post("/subjects/s/versions", body(ORDER_V2, null));
        assertThat(send("DELETE", "/subjects/s/versions/1?permanent=true", null, null).errorCode())
                .isEqualTo(40407);
        assertThat(send("DELETE", "/subjects/s/versions/1", null, null).text()).isEqualTo("1");
        assertThat(send("DELETE", "/subjects/s/versions/1", null, null).errorCode())
                .isEqualTo(40406);
        assertThat(get("/subjects/s/versions").text()).isEqualTo("[2]");
        assertThat(get("/subjects/s/versions?deleted=true").text()).isEqualTo("[1,2]");
        assertThat(get("/subjects/s/versions/1?deleted=true").json().get("id").asInt())
                .isEqualTo(1);
        assertThat(send("DELETE", "/subjects/s/versions/1?permanent=true", null, null).text())
                .isEqualTo("1");
        assertThat(get("/subjects/s/versions?deleted=true").text()).isEqualTo("[2]");
        assertThat(get("/schemas/ids/1").errorCode())
                .as("no version holds it any more")
                .isEqualTo(40403);
        assertThat(send("DELETE", "/subjects/s?permanent=true", null, null).errorCode())
                .isEqualTo(40405);
        assertThat(send("DELETE", "/subjects/s", null, null).text()).isEqualTo("[2]");
        assertThat(send("DELETE", "/subjects/s", null, null).errorCode()).isEqualTo(40404);
        assertThat(get("/subjects").text()).isEqualTo("[]");
        assertThat(get("/subjects?deleted=true").text()).isEqualTo("[\"s\"]");
        assertThat(send("DELETE", "/subjects/s?permanent=true", null, null).text())
                .isEqualTo("[2]");
        assertThat(get("/subjects/s/versions?deleted=true").errorCode()).isEqualTo(40401);
        // ids and versions are never reused
        Reply again = post("/subjects/s/versions", body("{\"type\":\"string\"}", null));
        assertThat(again.json().get("id").asInt()).isEqualTo(3);
        assertThat(get("/subjects/s/versions").text()).isEqualTo("[3]");
    }

    @Test
    void referencesResolveAndAReferencedVersionIsNotDeleted() throws Exception {
        String address =
                "{\"type\":\"record\",\"name\":\"Address\",\"namespace\":\"com.acme\",\"fields\":["
                        + "{\"name\":\"city\",\"type\":\"string\"}]}";
        post("/subjects/address/versions", body(address, null));
        String customer =
                "{\"type\":\"record\",\"name\":\"Customer\",\"namespace\":\"com.acme\",\"fields\":["
                        + "{\"name\":\"home\",\"type\":\"com.acme.Address\"}]}";
        ObjectNode req = JSON.createObjectNode();
        req.put("schema", customer);
        req.putArray("references")
                .addObject()
                .put("name", "com.acme.Address")
                .put("subject", "address")
                .put("version", 1);
        Reply reg = post("/subjects/customer-value/versions", JSON.writeValueAsString(req));
        assertThat(reg.status()).as(reg.text()).isEqualTo(200);
        int id = reg.json().get("id").asInt();
        JsonNode refs = get("/schemas/ids/" + id).json().get("references");
        assertThat(refs.get(0).get("subject").asString()).isEqualTo("address");
        assertThat(get("/subjects/address/versions/1/referencedby").text())
                .isEqualTo("[" + id + "]");
        Reply refused = send("DELETE", "/subjects/address/versions/1", null, null);
        assertThat(refused.status()).isEqualTo(422);
        assertThat(refused.errorCode()).isEqualTo(42206);
        // a reference to nothing is an invalid schema
        req.withArray("references").removeAll();
        req.withArray("references")
                .addObject()
                .put("name", "com.acme.Address")
                .put("subject", "address")
                .put("version", 5);
        assertThat(post("/subjects/other/versions", JSON.writeValueAsString(req)).errorCode())
                .isEqualTo(42201);
    }

    @Test
    void configAndModeAnswerAsConfluentDoes() throws Exception {
        assertThat(get("/config").text()).isEqualTo("{\"compatibilityLevel\":\"BACKWARD\"}");
        assertThat(send("PUT", "/config", "{\"compatibility\":\"FULL\"}", CT).text())
                .isEqualTo("{\"compatibility\":\"FULL\"}");
        assertThat(get("/config/s").errorCode()).isEqualTo(40408);
        assertThat(
                        get("/config/s?defaultToGlobal=true")
                                .json()
                                .get("compatibilityLevel")
                                .asString())
                .isEqualTo("FULL");
        send("PUT", "/config/s", "{\"compatibility\":\"none\",\"normalize\":true}", CT);
        assertThat(get("/config/s").text())
                .isEqualTo("{\"compatibilityLevel\":\"NONE\",\"normalize\":true}");
        assertThat(
                        send("DELETE", "/config/s", null, null)
                                .json()
                                .get("compatibilityLevel")
                                .asString())
                .isEqualTo("NONE");
        assertThat(
                        send("DELETE", "/config", null, null)
                                .json()
                                .get("compatibilityLevel")
                                .asString())
                .isEqualTo("FULL");
        assertThat(get("/config").json().get("compatibilityLevel").asString())
                .isEqualTo("BACKWARD");

        assertThat(get("/mode").text()).isEqualTo("{\"mode\":\"READWRITE\"}");
        assertThat(send("PUT", "/mode/s", "{\"mode\":\"READONLY\"}", CT).text())
                .isEqualTo("{\"mode\":\"READONLY\"}");
        Reply ro = post("/subjects/s/versions", body(ORDER_V1, null));
        assertThat(ro.status()).isEqualTo(422);
        assertThat(ro.errorCode()).isEqualTo(42205);
        assertThat(send("PUT", "/mode", "{\"mode\":\"IMPORT\"}", CT).errorCode()).isEqualTo(42204);
        assertThat(get("/mode/t").errorCode()).isEqualTo(40409);
        send("DELETE", "/mode/s", null, null);
        assertThat(post("/subjects/s/versions", body(ORDER_V1, null)).status()).isEqualTo(200);
    }

    @Test
    void compatibilityTestsAnswerIsCompatibleWithoutRegistering() throws Exception {
        post("/subjects/s/versions", body(ORDER_V1, null));
        // no versions to check against: compatible, as Confluent answers
        JsonNode none = post("/compatibility/subjects/empty/versions", body(ORDER_V1, null)).json();
        assertThat(none.get("is_compatible").asBoolean()).isTrue();
        assertThat(
                        post("/compatibility/subjects/empty/versions/latest", body(ORDER_V1, null))
                                .errorCode())
                .isEqualTo(40401);
        assertThat(post("/compatibility/subjects/s/versions/9", body(ORDER_V1, null)).errorCode())
                .isEqualTo(40402);
        assertThat(get("/subjects/s/versions").text()).isEqualTo("[1]");
    }

    @Test
    void evolutionIsGuardedByTheSubjectsLevelAndARefusalIs409NamingTheRule() throws Exception {
        post("/subjects/orders-value/versions", body(ORDER_V1, null));
        // BACKWARD (the default): a field added with a default reads old data
        assertThat(
                        post(
                                        "/compatibility/subjects/orders-value/versions/latest",
                                        body(ORDER_V2, null))
                                .json()
                                .get("is_compatible")
                                .asBoolean())
                .isTrue();
        assertThat(
                        post("/subjects/orders-value/versions", body(ORDER_V2, null))
                                .json()
                                .get("id")
                                .asInt())
                .isEqualTo(2);
        // a new field without a default cannot read data written before it
        String v3 =
                "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"com.acme\",\"fields\":["
                        + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"amount\",\"type\":\"double\"},"
                        + "{\"name\":\"customer\",\"type\":\"string\"}]}";
        JsonNode verbose =
                post("/compatibility/subjects/orders-value/versions?verbose=true", body(v3, null))
                        .json();
        assertThat(verbose.get("is_compatible").asBoolean()).isFalse();
        assertThat(verbose.get("messages").get(0).asString()).contains("customer");
        Reply refused = post("/subjects/orders-value/versions", body(v3, null));
        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.errorCode()).isEqualTo(409);
        assertThat(refused.json().get("message").asString())
                .contains("customer")
                .contains("BACKWARD");
        assertThat(get("/subjects/orders-value/versions").text()).isEqualTo("[1,2]");
        // with NONE it is accepted; field ids: kept by name, a new field gets the next id
        send("PUT", "/config/orders-value", "{\"compatibility\":\"NONE\"}", CT);
        assertThat(post("/subjects/orders-value/versions", body(v3, null)).status()).isEqualTo(200);
        var versions = registry.versions("orders-value", false);
        assertThat(versions.get(0).fieldIds()).containsEntry("id", 1).containsEntry("amount", 2);
        assertThat(versions.get(1).fieldIds())
                .containsEntry("id", 1)
                .containsEntry("amount", 2)
                .containsEntry("note", 3);
        assertThat(versions.get(2).fieldIds())
                .containsEntry("id", 1)
                .containsEntry("amount", 2)
                .containsEntry("customer", 4)
                .doesNotContainKey("note");
        // a type change is refused across formats too
        send("PUT", "/config/orders-value", "{\"compatibility\":\"BACKWARD\"}", CT);
        assertThat(post("/subjects/orders-value/versions", body(JSON_SCHEMA, "JSON")).status())
                .isEqualTo(409);
    }

    @Test
    void aSubjectNameWithSlashesAndColonsTravelsPercentEncoded() throws Exception {
        Reply reg = post("/subjects/team%2Forders%3Avalue/versions", body(ORDER_V1, null));
        assertThat(reg.status()).isEqualTo(200);
        assertThat(get("/subjects").text()).isEqualTo("[\"team/orders:value\"]");
        assertThat(
                        get("/subjects/team%2Forders%3Avalue/versions/latest")
                                .json()
                                .get("subject")
                                .asString())
                .isEqualTo("team/orders:value");
    }

    @Test
    void aLostCatalogIsA500WithStoreErrorCodeAndTheServerKeepsServing() throws Exception {
        post("/subjects/s/versions", body(ORDER_V1, null));
        catalog.close();
        Reply r = get("/subjects/s/versions");
        assertThat(r.status()).isEqualTo(500);
        assertThat(r.errorCode()).isEqualTo(50001);
        // what is cached is still served
        assertThat(get("/schemas/types").status()).isEqualTo(200);
    }
}
