package io.tierlog.registry.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.registry.CompatibilityLevel;
import io.tierlog.registry.ParsedSchema;
import io.tierlog.registry.RegisteredSchema;
import io.tierlog.registry.SchemaReference;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.format.ReferenceResolver;
import io.tierlog.registry.format.SchemaFormats;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A schema's references are part of what is compared: the same referring text over a referenced
 * schema's next version is checked against what that version changed.
 */
class CompatibilityWithReferencesTest {
    private static ParsedSchema parse(
            SchemaType type, String text, SchemaReference ref, Map<Integer, String> versions) {
        ReferenceResolver resolver =
                r ->
                        new RegisteredSchema(
                                10 + r.version(), type, versions.get(r.version()), List.of());
        return SchemaFormats.parse(type, text, List.of(ref), resolver, false);
    }

    private static List<String> backward(
            SchemaType type, String text, String name, String v1, String v2) {
        Map<Integer, String> versions = Map.of(1, v1, 2, v2);
        ParsedSchema old = parse(type, text, new SchemaReference(name, "customer", 1), versions);
        ParsedSchema neu = parse(type, text, new SchemaReference(name, "customer", 2), versions);
        return Compatibility.check(neu, List.of(old), CompatibilityLevel.BACKWARD);
    }

    @Test
    void avroChangeInAReferencedRecordIsChecked() {
        String v1 =
                "{\"type\":\"record\",\"name\":\"Customer\",\"namespace\":\"crm\",\"fields\":[{\"name\":\"name\",\"type\":\"string\"}]}";
        String v2 = v1.replace("}]}", "},{\"name\":\"tier\",\"type\":\"int\"}]}");
        String order =
                "{\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"c\",\"type\":\"crm.Customer\"}]}";
        assertThat(String.join("\n", backward(SchemaType.AVRO, order, "crm.Customer", v1, v2)))
                .contains("READER_FIELD_MISSING_DEFAULT_VALUE", "tier");
        assertThat(backward(SchemaType.AVRO, order, "crm.Customer", v1, v1)).isEmpty();
    }

    @Test
    void jsonChangeBehindARefIsChecked() {
        String v1 =
                "{\"type\":\"object\",\"properties\":{\"age\":{\"type\":\"integer\"}},\"additionalProperties\":false}";
        String v2 = v1.replace("integer", "string");
        String order =
                "{\"type\":\"object\",\"properties\":{\"c\":{\"$ref\":\"customer.json\"}},\"additionalProperties\":false}";
        assertThat(String.join("\n", backward(SchemaType.JSON, order, "customer.json", v1, v2)))
                .contains("TYPE_CHANGED", "#/properties/c/properties/age/type");
        assertThat(backward(SchemaType.JSON, order, "customer.json", v1, v1)).isEmpty();
    }

    @Test
    void protobufChangeInAnImportedMessageIsChecked() {
        String v1 = "syntax = \"proto3\"; package crm; message Customer { int32 tier = 1; }";
        String v2 = v1.replace("int32", "string");
        String order =
                "syntax = \"proto3\"; package shop; import \"crm/customer.proto\"; message Order { crm.Customer c = 1; }";
        assertThat(
                        String.join(
                                "\n",
                                backward(SchemaType.PROTOBUF, order, "crm/customer.proto", v1, v2)))
                .contains("FIELD_SCALAR_KIND_CHANGED", "#/crm.Customer/1");
        assertThat(backward(SchemaType.PROTOBUF, order, "crm/customer.proto", v1, v1)).isEmpty();
    }

    @Test
    void protobufMessageMovedIntoAnImportedFileIsNotRemoved() {
        String customer =
                "syntax = \"proto3\"; package shop; message Customer { string name = 1; }";
        ParsedSchema old =
                SchemaFormats.parse(
                        SchemaType.PROTOBUF,
                        "syntax = \"proto3\"; package shop; message Order { Customer c = 1; }"
                                + " message Customer { string name = 1; }",
                        List.of(),
                        null,
                        false);
        ParsedSchema neu =
                parse(
                        SchemaType.PROTOBUF,
                        "syntax = \"proto3\"; package shop; import \"shop/customer.proto\";"
                                + " message Order { Customer c = 1; }",
                        new SchemaReference("shop/customer.proto", "customer", 1),
                        Map.of(1, customer));
        assertThat(Compatibility.check(neu, List.of(old), CompatibilityLevel.BACKWARD)).isEmpty();
    }
}
