package io.tierlog.registry.format;

import io.tierlog.registry.ParsedSchema;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * A JSON Schema document; {@link #node()} is its Jackson tree, {@link #referenced()} the documents
 * its {@code $ref}s name (by reference name), for use inside this module.
 */
public interface JsonParsedSchema extends ParsedSchema {
    JsonNode node();

    Map<String, JsonNode> referenced();
}
