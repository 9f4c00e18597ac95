package io.tierlog.registry.compat;

import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.tierlog.common.testing.Property;
import io.tierlog.registry.CompatibilityLevel;
import io.tierlog.registry.ParsedSchema;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.format.JsonParsedSchema;
import io.tierlog.registry.format.SchemaFormats;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON Schema rules are sound: when a change passes BACKWARD, every document the old schema
 * accepts is accepted by the new one, checked by a real validator (networknt) on random object
 * schemas, random changes and random documents valid for the old schema (including undeclared
 * properties where its content model is open, which is what makes adding properties unsafe). The
 * reader applies its defaults first, as Confluent's rules for required properties with defaults
 * assume.
 */
class JsonCompatibilitySoundnessTest {
    private static final String[] NAMES = {"a", "b", "c", "d"};
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final SchemaRegistry VALIDATORS =
            SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7);

    @Test
    void aCompatibleReaderAcceptsEveryDocumentTheWriterAccepts() {
        int[] compatibleSeen = {0};
        Property.forAll(
                400,
                random -> {
                    ObjectNode writer = objectSchema(random);
                    ObjectNode reader = mutate(writer.deepCopy(), random);
                    ParsedSchema w = parse(writer);
                    ParsedSchema r = parse(reader);
                    List<String> issues =
                            Compatibility.check(r, List.of(w), CompatibilityLevel.BACKWARD);
                    if (!issues.isEmpty()) {
                        return;
                    }
                    compatibleSeen[0]++;
                    Schema writerValidator = VALIDATORS.getSchema(((JsonParsedSchema) w).node());
                    Schema readerValidator = VALIDATORS.getSchema(((JsonParsedSchema) r).node());
                    for (int i = 0; i < 20; i++) {
                        JsonNode document = document(writer, random);
                        assertThat(writerValidator.validate(document))
                                .as("generator: %s valid for %s", document, writer)
                                .isEmpty();
                        assertThat(readerValidator.validate(withReaderDefaults(reader, document)))
                                .as(
                                        "compatible per the rules, yet the reader %s refuses %s written under %s",
                                        reader, document, writer)
                                .isEmpty();
                    }
                });
        assertThat(compatibleSeen[0]).as("tries where the change was compatible").isGreaterThan(40);
    }

    /**
     * The document as a reader applying defaults sees it: Confluent's rules call a newly required
     * property with a default compatible (REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED) because the reader
     * fills it in.
     */
    private static JsonNode withReaderDefaults(ObjectNode reader, JsonNode document) {
        ObjectNode filled = (ObjectNode) document.deepCopy();
        JsonNode properties = reader.get("properties");
        for (String name : properties.propertyNames()) {
            JsonNode d = properties.get(name).get("default");
            if (d != null && !filled.has(name)) {
                filled.set(name, d);
            }
        }
        return filled;
    }

    private static ParsedSchema parse(JsonNode schema) {
        return SchemaFormats.parse(SchemaType.JSON, schema.toString(), List.of(), null, false);
    }

    private static ObjectNode objectSchema(Random random) {
        ObjectNode schema = F.objectNode().put("type", "object");
        ObjectNode properties = schema.putObject("properties");
        var required = F.arrayNode();
        for (String name : NAMES) {
            if (random.nextInt(3) > 0) {
                properties.set(name, leaf(random));
                if (random.nextInt(3) == 0) {
                    required.add(name);
                }
            }
        }
        if (!required.isEmpty()) {
            schema.set("required", required);
        }
        if (random.nextBoolean()) {
            schema.put("additionalProperties", false);
        } else if (random.nextInt(3) == 0) {
            schema.set("additionalProperties", leaf(random));
        }
        return schema;
    }

    private static ObjectNode leaf(Random random) {
        ObjectNode leaf = F.objectNode();
        switch (random.nextInt(6)) {
            case 0 -> leaf.put("type", "integer");
            case 1 -> leaf.put("type", "number");
            case 2 -> leaf.put("type", "string");
            case 3 -> leaf.put("type", "string").put("maxLength", 1 + random.nextInt(4));
            case 4 ->
                    leaf.put("type", "integer")
                            .put("minimum", random.nextInt(5))
                            .put("maximum", 5 + random.nextInt(5));
            default -> {
                var values = leaf.putArray("enum");
                for (String v : new String[] {"x", "y", "z"}) {
                    if (random.nextBoolean() || values.isEmpty()) {
                        values.add(v);
                    }
                }
            }
        }
        return leaf;
    }

    private static ObjectNode mutate(ObjectNode schema, Random random) {
        ObjectNode properties = (ObjectNode) schema.get("properties");
        String name = NAMES[random.nextInt(NAMES.length)];
        switch (random.nextInt(7)) {
            case 0 -> properties.set(name, leaf(random)); // add or retype
            case 1 -> properties.remove(name);
            case 2 -> schema.remove("additionalProperties");
            case 3 -> schema.put("additionalProperties", false);
            case 4 -> schema.set("additionalProperties", leaf(random));
            case 5 -> {
                var required =
                        schema.has("required")
                                ? (tools.jackson.databind.node.ArrayNode) schema.get("required")
                                : schema.putArray("required");
                boolean already = required.valueStream().anyMatch(v -> v.asString().equals(name));
                if (!already) {
                    required.add(name);
                }
                if (random.nextBoolean() && properties.has(name)) {
                    ObjectNode leaf = (ObjectNode) properties.get(name);
                    leaf.set("default", value(leaf, random));
                }
            }
            default -> {
                if (properties.has(name)) {
                    ObjectNode leaf = (ObjectNode) properties.get(name);
                    if (leaf.has("maxLength")) {
                        leaf.put("maxLength", random.nextInt(6));
                    } else if (leaf.has("enum")) {
                        leaf.set("enum", F.arrayNode().add("x"));
                    } else {
                        leaf.put("type", random.nextBoolean() ? "number" : "integer");
                    }
                }
            }
        }
        return schema;
    }

    /** A document valid for {@code schema} (an object schema from {@link #objectSchema}). */
    private static JsonNode document(ObjectNode schema, Random random) {
        ObjectNode doc = F.objectNode();
        JsonNode properties = schema.get("properties");
        List<String> required =
                schema.has("required")
                        ? schema.get("required").valueStream().map(JsonNode::asString).toList()
                        : List.of();
        for (String name : NAMES) {
            JsonNode leaf = properties.get(name);
            if (leaf != null && (required.contains(name) || random.nextBoolean())) {
                doc.set(name, value(leaf, random));
            }
        }
        JsonNode extra = schema.get("additionalProperties");
        for (String name : new String[] {"a", "b", "c", "d", "zz"}) {
            if (properties.has(name) || random.nextInt(3) > 0) {
                continue;
            }
            if (extra == null) {
                doc.set(name, anyValue(random));
            } else if (extra.isObject()) {
                doc.set(name, value(extra, random));
            }
        }
        return doc;
    }

    private static JsonNode value(JsonNode leaf, Random random) {
        if (leaf.has("enum")) {
            return leaf.get("enum").get(random.nextInt(leaf.get("enum").size()));
        }
        return switch (leaf.get("type").asString()) {
            case "integer" -> {
                int min = leaf.has("minimum") ? leaf.get("minimum").asInt() : -100;
                int max = leaf.has("maximum") ? leaf.get("maximum").asInt() : 100;
                yield F.numberNode(min + random.nextInt(max - min + 1));
            }
            case "number" ->
                    random.nextBoolean()
                            ? F.numberNode(random.nextInt(50))
                            : F.numberNode(random.nextDouble() * 10);
            default -> {
                int max = leaf.has("maxLength") ? leaf.get("maxLength").asInt() : 6;
                yield F.stringNode("q".repeat(random.nextInt(max + 1)));
            }
        };
    }

    private static JsonNode anyValue(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> F.numberNode(random.nextInt(20));
            case 1 -> F.stringNode("free");
            case 2 -> F.booleanNode(random.nextBoolean());
            default -> F.numberNode(2.5);
        };
    }
}
