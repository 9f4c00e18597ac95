package io.tierlog.registry.typed;

import io.tierlog.registry.SchemaReference;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.format.AvroParsedSchema;
import io.tierlog.registry.format.JsonParsedSchema;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Parsed schemas built with each format's own library, for tests of the mapping that do not need
 * the formats slice's parser.
 */
final class TestSchemas {
    private TestSchemas() {}

    static AvroParsedSchema avro(String text) {
        Schema schema = new Schema.Parser().parse(text);
        return new AvroParsedSchema() {
            @Override
            public Schema avro() {
                return schema;
            }

            @Override
            public SchemaType type() {
                return SchemaType.AVRO;
            }

            @Override
            public String text() {
                return text;
            }

            @Override
            public String canonical() {
                return schema.toString();
            }

            @Override
            public List<SchemaReference> references() {
                return List.of();
            }
        };
    }

    static JsonParsedSchema json(String text) {
        return json(text, Map.of());
    }

    static JsonParsedSchema json(String text, Map<String, String> referenced) {
        JsonMapper mapper = JsonMapper.builder().build();
        JsonNode node = mapper.readTree(text);
        Map<String, JsonNode> refs = new java.util.HashMap<>();
        referenced.forEach((k, v) -> refs.put(k, mapper.readTree(v)));
        return new JsonParsedSchema() {
            @Override
            public JsonNode node() {
                return node;
            }

            @Override
            public Map<String, JsonNode> referenced() {
                return refs;
            }

            @Override
            public SchemaType type() {
                return SchemaType.JSON;
            }

            @Override
            public String text() {
                return text;
            }

            @Override
            public String canonical() {
                return node.toString();
            }

            @Override
            public List<SchemaReference> references() {
                return List.of();
            }
        };
    }
}
