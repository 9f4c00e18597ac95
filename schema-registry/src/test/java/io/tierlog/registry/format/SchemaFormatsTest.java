package io.tierlog.registry.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Descriptors;
import io.tierlog.registry.ParsedSchema;
import io.tierlog.registry.RegisteredSchema;
import io.tierlog.registry.SchemaReference;
import io.tierlog.registry.SchemaRegistryException;
import io.tierlog.registry.SchemaType;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class SchemaFormatsTest {
    /** Registered schemas by "subject/version", as a registry's store would resolve them. */
    private final Map<String, RegisteredSchema> store = new HashMap<>();

    private final ReferenceResolver resolver =
            ref -> {
                RegisteredSchema s = store.get(ref.subject() + "/" + ref.version());
                if (s == null) {
                    throw new SchemaRegistryException(42201, "no " + ref);
                }
                return s;
            };

    private void register(
            String subject, int version, SchemaType type, String text, SchemaReference... refs) {
        store.put(
                subject + "/" + version,
                new RegisteredSchema(store.size() + 1, type, text, List.of(refs)));
    }

    private ParsedSchema parse(SchemaType type, String text, SchemaReference... refs) {
        return SchemaFormats.parse(type, text, List.of(refs), resolver, false);
    }

    private static void assertInvalid(Runnable parse, String messagePart) {
        assertThatThrownBy(parse::run)
                .isInstanceOfSatisfying(
                        SchemaRegistryException.class,
                        e -> assertThat(e.errorCode()).isEqualTo(42201))
                .hasMessageContaining(messagePart);
    }

    // ---- Avro

    private static final String ORDER =
            "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"shop\",\"fields\":["
                    + "{\"name\":\"id\",\"type\":\"long\"},"
                    + "{\"name\":\"amount\",\"type\":\"double\",\"default\":0.0}]}";

    @Test
    void avroRecordParsesAndItsCanonicalFormIgnoresLayout() {
        ParsedSchema a = parse(SchemaType.AVRO, ORDER);
        ParsedSchema b = parse(SchemaType.AVRO, ORDER.replace(",", ",\n  ").replace("{", "{ "));
        assertThat(a.type()).isEqualTo(SchemaType.AVRO);
        assertThat(((AvroParsedSchema) a).avro().getField("amount").schema().getType())
                .isEqualTo(Schema.Type.DOUBLE);
        assertThat(b.canonical()).isEqualTo(a.canonical());
        assertThat(b.text()).isNotEqualTo(a.text());
    }

    @Test
    void avroCanonicalFormKeepsDefaultsSoAChangedDefaultIsANewSchema() {
        ParsedSchema a = parse(SchemaType.AVRO, ORDER);
        ParsedSchema b = parse(SchemaType.AVRO, ORDER.replace("0.0", "1.5"));
        assertThat(b.canonical()).isNotEqualTo(a.canonical());
    }

    @Test
    void avroNormalizeReturnsTheCanonicalText() {
        ParsedSchema n =
                SchemaFormats.parse(
                        SchemaType.AVRO, ORDER.replace(",", ", "), List.of(), null, true);
        assertThat(n.text()).isEqualTo(n.canonical());
    }

    @Test
    void avroInvalidSchemasAre42201() {
        assertInvalid(
                () -> parse(SchemaType.AVRO, "{\"type\":\"recordx\",\"name\":\"X\"}"), "Avro");
        assertInvalid(() -> parse(SchemaType.AVRO, "not json"), "Avro");
        assertInvalid(() -> parse(SchemaType.AVRO, ORDER.replace("0.0", "\"zero\"")), "zero");
    }

    @Test
    void avroNamesTypesFromReferencesAndWritesThemByNameInTheCanonicalForm() {
        register(
                "customer-value",
                1,
                SchemaType.AVRO,
                "{\"type\":\"record\",\"name\":\"Customer\",\"namespace\":\"shop\",\"fields\":[{\"name\":\"name\",\"type\":\"string\"}]}");
        String text =
                "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"shop\",\"fields\":["
                        + "{\"name\":\"customer\",\"type\":\"shop.Customer\"}]}";
        AvroParsedSchema parsed =
                (AvroParsedSchema)
                        parse(
                                SchemaType.AVRO,
                                text,
                                new SchemaReference("shop.Customer", "customer-value", 1));
        assertThat(parsed.avro().getField("customer").schema().getField("name")).isNotNull();
        assertThat(parsed.canonical())
                .contains("\"type\":\"Customer\"")
                .doesNotContain("\"name\":\"name\"");
        assertInvalid(() -> parse(SchemaType.AVRO, text), "Customer");
    }

    @Test
    void avroReferenceToAMissingVersionIs42201() {
        assertInvalid(
                () -> parse(SchemaType.AVRO, ORDER, new SchemaReference("x", "nope", 3)), "nope");
    }

    // ---- JSON Schema

    private static final String PERSON =
            "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"age\":{\"type\":\"integer\"}},"
                    + "\"required\":[\"name\"]}";

    @Test
    void jsonSchemaParsesWithDraft7ByDefaultAndCanonicalSortsKeys() {
        JsonParsedSchema a = (JsonParsedSchema) parse(SchemaType.JSON, PERSON);
        JsonParsedSchema b =
                (JsonParsedSchema)
                        parse(
                                SchemaType.JSON,
                                "{\"required\":[\"name\"],\"properties\":{\"age\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"}},\"type\":\"object\"}");
        assertThat(a.node().get("properties").get("age").get("type").asString())
                .isEqualTo("integer");
        assertThat(b.canonical()).isEqualTo(a.canonical());
        assertThat(((JsonFormat.Parsed) a).draft().name()).isEqualTo("DRAFT_7");
    }

    @Test
    void jsonSchemaDraftsComeFromDollarSchema() {
        for (String[] d :
                new String[][] {
                    {"http://json-schema.org/draft-04/schema#", "DRAFT_4"},
                    {"http://json-schema.org/draft-06/schema#", "DRAFT_6"},
                    {"https://json-schema.org/draft/2019-09/schema", "DRAFT_2019_09"},
                    {"https://json-schema.org/draft/2020-12/schema", "DRAFT_2020_12"}
                }) {
            String text = "{\"$schema\":\"" + d[0] + "\"," + PERSON.substring(1);
            assertThat(((JsonFormat.Parsed) parse(SchemaType.JSON, text)).draft().name())
                    .isEqualTo(d[1]);
        }
        assertInvalid(
                () -> parse(SchemaType.JSON, "{\"$schema\":\"http://example.com/mine\"}"), "draft");
    }

    @Test
    void jsonSchemaThatBreaksItsMetaSchemaOrIsNotJsonIs42201() {
        assertInvalid(() -> parse(SchemaType.JSON, "{\"type\":5}"), "meta-schema");
        assertInvalid(() -> parse(SchemaType.JSON, "{\"type\":\"object\""), "not JSON");
        assertInvalid(() -> parse(SchemaType.JSON, "[1,2]"), "object or a boolean");
        assertInvalid(() -> parse(SchemaType.JSON, "{\"a\":1,\"a\":2}"), "not JSON");
    }

    @Test
    void jsonSchemaRefsResolveToReferencesAndNeverToTheNetwork() {
        register(
                "customer",
                1,
                SchemaType.JSON,
                "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}");
        String text =
                "{\"type\":\"object\",\"properties\":{\"customer\":{\"$ref\":\"customer.json\"}}}";
        JsonParsedSchema parsed =
                (JsonParsedSchema)
                        parse(
                                SchemaType.JSON,
                                text,
                                new SchemaReference("customer.json", "customer", 1));
        assertThat(parsed.referenced()).containsKey("customer.json");
        assertInvalid(() -> parse(SchemaType.JSON, text), "customer.json");
        assertInvalid(
                () ->
                        parse(
                                SchemaType.JSON,
                                "{\"properties\":{\"x\":{\"$ref\":\"http://127.0.0.1:9/none.json\"}}}"),
                "does not load");
    }

    @Test
    void jsonSchemaInternalRefsResolve() {
        parse(
                SchemaType.JSON,
                "{\"definitions\":{\"n\":{\"type\":\"string\"}},\"properties\":{\"x\":{\"$ref\":\"#/definitions/n\"}}}");
        assertInvalid(
                () ->
                        parse(
                                SchemaType.JSON,
                                "{\"properties\":{\"x\":{\"$ref\":\"#/definitions/missing\"}}}"),
                "does not load");
    }

    // ---- Protobuf

    private static final String SHOP_PROTO =
            """
            syntax = "proto3";
            package shop;
            import "google/protobuf/timestamp.proto";

            // An order.
            message Order {
              int64 id = 1;
              optional double amount = 2;
              map<string, int32> counts = 3;
              oneof payment {
                string card = 4;
                string iban = 5;
              }
              google.protobuf.Timestamp at = 6;
              Status status = 7;
              message Line { string sku = 1; }
              repeated Line lines = 8;
            }
            enum Status { UNKNOWN = 0; PAID = 1; }
            message Refund { int64 order_id = 1; }
            """;

    @Test
    void protobufBuildsADescriptorWithWellKnownTypesMapsOneofsAndProto3Optional() {
        ProtobufParsedSchema parsed = (ProtobufParsedSchema) parse(SchemaType.PROTOBUF, SHOP_PROTO);
        Descriptors.Descriptor order = parsed.message(List.of());
        assertThat(order.getFullName()).isEqualTo("shop.Order");
        assertThat(order.findFieldByName("counts").isMapField()).isTrue();
        assertThat(order.findFieldByName("card").getContainingOneof().getName())
                .isEqualTo("payment");
        assertThat(order.findFieldByName("amount").hasPresence()).isTrue();
        assertThat(order.findFieldByName("at").getMessageType().getFullName())
                .isEqualTo("google.protobuf.Timestamp");
        assertThat(order.findFieldByName("status").getEnumType().getFullName())
                .isEqualTo("shop.Status");
        assertThat(parsed.message(List.of(0))).isSameAs(order);
        assertThat(parsed.message(List.of(1)).getName()).isEqualTo("Refund");
        assertThat(parsed.message(List.of(0, 0)).getName()).isEqualTo("Line");
        assertThatThrownBy(() -> parsed.message(List.of(0, 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> parsed.message(List.of(2)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void protobufCanonicalFormIgnoresLayout() {
        ParsedSchema a = parse(SchemaType.PROTOBUF, SHOP_PROTO);
        ParsedSchema b =
                parse(SchemaType.PROTOBUF, SHOP_PROTO.replace("  ", "    ").replace(" = ", "="));
        assertThat(b.canonical()).isEqualTo(a.canonical());
    }

    @Test
    void protobufImportsResolveThroughReferences() {
        register(
                "customer.proto",
                1,
                SchemaType.PROTOBUF,
                "syntax = \"proto3\"; package crm; message Customer { string name = 1; }");
        String text =
                "syntax = \"proto3\"; package shop; import \"crm/customer.proto\";"
                        + " message Order { crm.Customer customer = 1; }";
        ProtobufParsedSchema parsed =
                (ProtobufParsedSchema)
                        parse(
                                SchemaType.PROTOBUF,
                                text,
                                new SchemaReference("crm/customer.proto", "customer.proto", 1));
        assertThat(
                        parsed.message(List.of(0))
                                .findFieldByName("customer")
                                .getMessageType()
                                .getFullName())
                .isEqualTo("crm.Customer");
        assertInvalid(() -> parse(SchemaType.PROTOBUF, text), "crm/customer.proto");
    }

    @Test
    void protobufInvalidSchemasAre42201() {
        assertInvalid(() -> parse(SchemaType.PROTOBUF, "message {"), "does not parse");
        assertInvalid(
                () ->
                        parse(
                                SchemaType.PROTOBUF,
                                "syntax = \"proto3\"; message A { Missing m = 1; }"),
                "Missing");
        assertInvalid(
                () ->
                        parse(
                                SchemaType.PROTOBUF,
                                "syntax = \"proto3\"; message A { int32 a = 1; int32 b = 1; }"),
                "1");
    }

    @Test
    void protobufAcceptsABase64FileDescriptorProtoAsConfluentsJavaScriptClientSendsIt() {
        ProtobufParsedSchema text = (ProtobufParsedSchema) parse(SchemaType.PROTOBUF, SHOP_PROTO);
        ProtobufParsedSchema fromDescriptor =
                (ProtobufParsedSchema) parse(SchemaType.PROTOBUF, text.serialized());
        assertThat(fromDescriptor.text())
                .isEqualTo(fromDescriptor.canonical())
                .contains("message Order");
        Descriptors.Descriptor order = fromDescriptor.message(List.of(0));
        assertThat(order.findFieldByName("counts").isMapField()).isTrue();
        assertThat(order.findFieldByName("amount").hasPresence()).isTrue();
        assertThat(order.findFieldByName("iban").getContainingOneof().getName())
                .isEqualTo("payment");
        assertThat(fromDescriptor.message(List.of(0, 0)).getName()).isEqualTo("Line");
        assertThat(fromDescriptor.message(List.of(1)).getName()).isEqualTo("Refund");
        for (Descriptors.FieldDescriptor f : text.message(List.of(0)).getFields()) {
            Descriptors.FieldDescriptor g = order.findFieldByNumber(f.getNumber());
            assertThat(g.getName()).isEqualTo(f.getName());
            assertThat(g.getType()).isEqualTo(f.getType());
            assertThat(g.isRepeated()).isEqualTo(f.isRepeated());
        }
        ProtobufParsedSchema again =
                (ProtobufParsedSchema) parse(SchemaType.PROTOBUF, fromDescriptor.serialized());
        assertThat(again.canonical()).isEqualTo(fromDescriptor.canonical());
    }

    @Test
    void protobufDescriptorWithReferencesNamesDependenciesByImportPath() {
        register(
                "customer.proto",
                1,
                SchemaType.PROTOBUF,
                "syntax = \"proto3\"; package crm; message Customer { string name = 1; }");
        SchemaReference ref = new SchemaReference("crm/customer.proto", "customer.proto", 1);
        ProtobufParsedSchema text =
                (ProtobufParsedSchema)
                        parse(
                                SchemaType.PROTOBUF,
                                "syntax = \"proto3\"; package shop; import \"crm/customer.proto\";"
                                        + " message Order { crm.Customer customer = 1; }",
                                ref);
        assertThat(text.fileDescriptor().getDependencies().get(0).getName())
                .isEqualTo("crm/customer.proto");
        ProtobufParsedSchema fromDescriptor =
                (ProtobufParsedSchema) parse(SchemaType.PROTOBUF, text.serialized(), ref);
        assertThat(
                        fromDescriptor
                                .message(List.of(0))
                                .findFieldByName("customer")
                                .getMessageType()
                                .getFullName())
                .isEqualTo("crm.Customer");
    }

    @Test
    void protobufTextThatIsNeitherProtoNorADescriptorIs42201() {
        assertInvalid(() -> parse(SchemaType.PROTOBUF, "aGVsbG8="), "does not parse");
    }

    @Test
    void protobufImportsConfluentsBuiltInsWithoutAReference() {
        ProtobufParsedSchema parsed =
                (ProtobufParsedSchema)
                        parse(
                                SchemaType.PROTOBUF,
                                "syntax = \"proto3\"; package shop; import \"confluent/meta.proto\";"
                                        + " import \"confluent/type/decimal.proto\";"
                                        + " message Order { confluent.type.Decimal amount = 1"
                                        + " [(confluent.field_meta) = { doc: \"in EUR\" }]; }");
        assertThat(
                        parsed.message(List.of(0))
                                .findFieldByName("amount")
                                .getMessageType()
                                .getFullName())
                .isEqualTo("confluent.type.Decimal");
    }

    @Test
    void edgeSchemasThatAreValid() {
        assertThat(parse(SchemaType.JSON, "true").canonical()).isEqualTo("true");
        assertThat(parse(SchemaType.JSON, "{}").canonical()).isEqualTo("{}");
        parse(
                SchemaType.JSON,
                "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$defs\":{\"n\":{\"type\":\"string\"}},"
                        + "\"type\":\"object\",\"properties\":{\"x\":{\"$ref\":\"#/$defs/n\"}},\"unevaluatedProperties\":false}");
        parse(SchemaType.JSON, "{\"type\":\"object\",\"javaType\":\"com.example.Order\"}");
        assertThat(((AvroParsedSchema) parse(SchemaType.AVRO, "\"string\"")).avro().getType())
                .isEqualTo(Schema.Type.STRING);
        ProtobufParsedSchema empty =
                (ProtobufParsedSchema)
                        parse(SchemaType.PROTOBUF, "syntax = \"proto3\"; package p;");
        assertThatThrownBy(() -> empty.message(List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void jsonRefByAbsoluteUrlAndRelativeToDollarId() {
        register(
                "customer",
                1,
                SchemaType.JSON,
                "{\"$id\":\"https://example.com/customer.json\",\"type\":\"object\"}");
        parse(
                SchemaType.JSON,
                "{\"properties\":{\"c\":{\"$ref\":\"https://example.com/customer.json\"}}}",
                new SchemaReference("https://example.com/customer.json", "customer", 1));
        parse(
                SchemaType.JSON,
                "{\"$id\":\"https://example.com/order.json\",\"properties\":{\"c\":{\"$ref\":\"customer.json\"}}}",
                new SchemaReference("customer.json", "customer", 1));
    }

    @Test
    void emptyTextIs42201() {
        for (SchemaType type : SchemaType.values()) {
            assertInvalid(() -> parse(type, "  "), "empty");
        }
    }
}
