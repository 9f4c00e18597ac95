package io.tierlog.registry.http;

import io.tierlog.registry.ErrorCodes;
import io.tierlog.registry.ParsedSchema;
import io.tierlog.registry.RegisteredSchema;
import io.tierlog.registry.SchemaReference;
import io.tierlog.registry.SchemaRegistryException;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.SubjectSchema;
import io.tierlog.registry.format.ProtobufParsedSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON bodies of Confluent's REST API, read and written with Jackson: the schema a request
 * registers or looks up ({@code schema}, {@code schemaType}, {@code references}), and the schema
 * objects responses carry ({@code schemaType} omitted for AVRO and {@code references} when empty,
 * as Confluent's registry does). Stateless besides a thread-safe mapper.
 */
final class Json {
    private Json() {}

    static final JsonMapper MAPPER = JsonMapper.builder().build();

    /** A request's schema: the body of a registration, lookup or compatibility test. */
    record SchemaBody(SchemaType type, String schema, List<SchemaReference> references, int id) {}

    /**
     * Reads a request body as JSON.
     *
     * @throws SchemaRegistryException 400 for an empty or malformed body
     */
    static JsonNode read(String body) {
        if (body == null || body.isBlank()) {
            throw new SchemaRegistryException(400, "Request body is empty: a JSON object expected");
        }
        try {
            JsonNode n = MAPPER.readTree(body);
            if (n == null || !n.isObject()) {
                throw new SchemaRegistryException(400, "Request body must be a JSON object");
            }
            return n;
        } catch (JacksonException e) {
            throw new SchemaRegistryException(
                    400, "Malformed JSON in the request body: " + e.getOriginalMessage());
        }
    }

    /**
     * The schema of a request body.
     *
     * @throws SchemaRegistryException 42201 when {@code schema} is missing or the type unknown, 422
     *     for a malformed reference
     */
    static SchemaBody schemaBody(String body) {
        JsonNode n = read(body);
        JsonNode schema = n.get("schema");
        if (schema == null || !schema.isString()) {
            throw new SchemaRegistryException(
                    ErrorCodes.INVALID_SCHEMA,
                    "Invalid schema: the request has no \"schema\" string");
        }
        SchemaType type;
        JsonNode t = n.get("schemaType");
        try {
            type = SchemaType.of(t == null || t.isNull() ? null : t.asString());
        } catch (IllegalArgumentException e) {
            throw new SchemaRegistryException(
                    ErrorCodes.INVALID_SCHEMA,
                    "Invalid schema type " + t.asString() + ": AVRO, JSON and PROTOBUF are served");
        }
        List<SchemaReference> refs = new ArrayList<>();
        JsonNode rs = n.get("references");
        if (rs != null && !rs.isNull()) {
            if (!rs.isArray()) {
                throw new SchemaRegistryException(422, "\"references\" must be an array");
            }
            for (JsonNode r : rs.values()) {
                JsonNode name = r.get("name");
                JsonNode subject = r.get("subject");
                JsonNode version = r.get("version");
                if (name == null
                        || !name.isString()
                        || subject == null
                        || !subject.isString()
                        || version == null
                        || !version.isInt()) {
                    throw new SchemaRegistryException(
                            422,
                            "a reference needs \"name\", \"subject\" and an integer \"version\"");
                }
                refs.add(
                        new SchemaReference(
                                name.asString(), subject.asString(), version.intValue()));
            }
        }
        JsonNode id = n.get("id");
        return new SchemaBody(
                type, schema.asString(), refs, id != null && id.isInt() ? id.intValue() : 0);
    }

    /**
     * A schema as responses carry it: {@code schema} (as registered, or, for PROTOBUF with {@code
     * format=serialized}, base64 of its {@code FileDescriptorProto}), {@code schemaType} unless
     * AVRO, {@code references} unless none.
     */
    static ObjectNode schema(
            ObjectNode out, RegisteredSchema s, Optional<ParsedSchema> parsed, String format) {
        if (s.type() != SchemaType.AVRO) {
            out.put("schemaType", s.type().name());
        }
        if (!s.references().isEmpty()) {
            ArrayNode refs = out.putArray("references");
            for (SchemaReference r : s.references()) {
                refs.addObject()
                        .put("name", r.name())
                        .put("subject", r.subject())
                        .put("version", r.version());
            }
        }
        String text = s.text();
        if ("serialized".equalsIgnoreCase(format)
                && parsed.isPresent()
                && parsed.get() instanceof ProtobufParsedSchema p) {
            text = p.serialized();
        }
        out.put("schema", text);
        return out;
    }

    /**
     * A version of a subject with its schema: {@code subject, version, id, schemaType, references,
     * schema}.
     */
    static ObjectNode subjectSchema(SubjectSchema s, Optional<ParsedSchema> parsed, String format) {
        ObjectNode out = MAPPER.createObjectNode();
        out.put("subject", s.subject());
        out.put("version", s.version().version());
        out.put("id", s.id());
        return schema(out, s.schema(), parsed, format);
    }

    static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    static ArrayNode array() {
        return MAPPER.createArrayNode();
    }

    /** Confluent's error body. */
    static ObjectNode error(int code, String message) {
        ObjectNode out = MAPPER.createObjectNode();
        out.put("error_code", code);
        out.put("message", message);
        return out;
    }

    static String write(JsonNode n) {
        return MAPPER.writeValueAsString(n);
    }
}
