package io.tierlog.registry.format;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.dialect.Dialect;
import com.networknt.schema.dialect.Dialects;
import com.networknt.schema.keyword.AnnotationKeyword;
import io.tierlog.registry.SchemaReference;
import io.tierlog.registry.SchemaType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * JSON Schema documents, as networknt's validator reads them: drafts 4, 6, 7, 2019-09 and 2020-12,
 * chosen by {@code $schema} (draft 7 when absent, Confluent's default). A document must be valid
 * against its draft's meta-schema, and every {@code $ref} must resolve: inside the document, or to
 * a referenced schema, matched by the reference's name either exactly or as the last path segments
 * of the resolved URL (so {@code "$ref": "customer.json"} finds the reference named {@code
 * customer.json} whatever the document's base). Nothing is ever fetched from the network. The
 * canonical form is the document with object keys sorted, compact. Stateless, so thread-safe.
 */
final class JsonFormat {
    static final JsonMapper MAPPER =
            JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    /** The base URL of a document without {@code $id}, so relative {@code $ref}s resolve. */
    private static final String DEFAULT_BASE = "https://schemas.tierlog.invalid/schema.json";

    /** Meta-schemas by draft: loaded once, then shared (networknt schemas are thread-safe). */
    private static final Map<SpecificationVersion, Schema> META_SCHEMAS = new ConcurrentHashMap<>();

    private JsonFormat() {}

    /**
     * The draft's dialect, except that keywords it does not define are annotations: Confluent's
     * registry accepts them (generators add {@code javaType} and the like), and networknt would
     * otherwise log a warning for each one at every registration.
     */
    private static Dialect dialect(SpecificationVersion draft) {
        Dialect standard =
                switch (draft) {
                    case DRAFT_4 -> Dialects.getDraft4();
                    case DRAFT_6 -> Dialects.getDraft6();
                    case DRAFT_7 -> Dialects.getDraft7();
                    case DRAFT_2019_09 -> Dialects.getDraft201909();
                    case DRAFT_2020_12 -> Dialects.getDraft202012();
                };
        return Dialect.builder(standard)
                .unknownKeywordFactory((keyword, context) -> new AnnotationKeyword(keyword))
                .build();
    }

    private static Schema metaSchema(SpecificationVersion draft) {
        return SchemaRegistry.withDefaultDialect(dialect(draft))
                .getSchema(SchemaLocation.of(draft.getDialectId()));
    }

    static JsonParsedSchema parse(
            String text,
            List<SchemaReference> references,
            ReferenceResolver resolver,
            boolean normalize) {
        Map<String, JsonNode> referenced = new LinkedHashMap<>();
        Map<String, String> referencedText = new LinkedHashMap<>();
        // Names are global to the document set, as in Confluent's registry: collect every name the
        // graph uses with the text it resolves to.
        if (!references.isEmpty() && resolver == null) {
            throw References.invalid("the schema has references but no resolver was given");
        }
        collectNames(references, resolver, referenced, referencedText, 0);

        JsonNode node = read(text, "the schema");
        if (!node.isObject() && !node.isBoolean()) {
            throw References.invalid(
                    "a JSON Schema is an object or a boolean, got " + node.getNodeType());
        }
        SpecificationVersion draft = draftOf(node);
        validateAgainstMetaSchema(node, draft, "the schema");
        load(node, draft, referencedText);
        String canonical = sorted(node).toString();
        return new Parsed(
                normalize ? canonical : text,
                canonical,
                List.copyOf(references),
                node,
                Map.copyOf(referenced),
                draft);
    }

    private static void collectNames(
            List<SchemaReference> references,
            ReferenceResolver resolver,
            Map<String, JsonNode> nodes,
            Map<String, String> texts,
            int depth) {
        if (depth > References.MAX_DEPTH) {
            throw References.invalid("references nest deeper than " + References.MAX_DEPTH);
        }
        for (SchemaReference ref : references) {
            if (nodes.containsKey(ref.name())) {
                continue;
            }
            References.Resolved resolved = References.resolveOne(ref, resolver);
            String what = "referenced schema " + ref.name();
            JsonNode node = read(resolved.schema().text(), what);
            validateAgainstMetaSchema(node, draftOf(node), what);
            nodes.put(ref.name(), node);
            texts.put(ref.name(), resolved.schema().text());
            collectNames(resolved.schema().references(), resolver, nodes, texts, depth + 1);
        }
    }

    static JsonNode read(String text, String what) {
        try {
            JsonNode node = MAPPER.readTree(text);
            if (node == null || node.isMissingNode()) {
                throw References.invalid(what + " is empty");
            }
            return node;
        } catch (JacksonException e) {
            throw References.invalid(what + " is not JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** The draft {@code $schema} names; draft 7 when there is none. */
    static SpecificationVersion draftOf(JsonNode node) {
        JsonNode declared = node.isObject() ? node.get("$schema") : null;
        if (declared == null) {
            return SpecificationVersion.DRAFT_7;
        }
        String uri = declared.isString() ? declared.asString() : "";
        if (uri.contains("draft-04")) {
            return SpecificationVersion.DRAFT_4;
        } else if (uri.contains("draft-06")) {
            return SpecificationVersion.DRAFT_6;
        } else if (uri.contains("draft-07")) {
            return SpecificationVersion.DRAFT_7;
        } else if (uri.contains("2019-09")) {
            return SpecificationVersion.DRAFT_2019_09;
        } else if (uri.contains("2020-12")) {
            return SpecificationVersion.DRAFT_2020_12;
        }
        throw References.invalid(
                "$schema "
                        + declared
                        + " names no supported draft (draft-04, draft-06, draft-07, 2019-09,"
                        + " 2020-12)");
    }

    private static void validateAgainstMetaSchema(
            JsonNode node, SpecificationVersion draft, String what) {
        if (node.isBoolean()) {
            return;
        }
        List<Error> errors =
                META_SCHEMAS.computeIfAbsent(draft, JsonFormat::metaSchema).validate(node);
        if (!errors.isEmpty()) {
            List<String> messages = new ArrayList<>();
            for (Error error : errors) {
                messages.add(error.toString());
            }
            throw References.invalid(what + " breaks its meta-schema (" + draft + "): " + messages);
        }
    }

    /** Loads the document with networknt, resolving every {@code $ref} now, not at first use. */
    private static void load(JsonNode node, SpecificationVersion draft, Map<String, String> texts) {
        SchemaRegistry registry =
                SchemaRegistry.withDefaultDialect(
                        dialect(draft), builder -> builder.schemas(iri -> lookup(iri, texts)));
        try {
            String base =
                    node.isObject() && node.hasNonNull("$id")
                            ? node.get("$id").asString()
                            : DEFAULT_BASE;
            Schema schema = registry.getSchema(SchemaLocation.of(base), node);
            schema.initializeValidators();
        } catch (RuntimeException e) {
            throw References.invalid("JSON Schema does not load: " + e.getMessage(), e);
        }
    }

    private static String lookup(String iri, Map<String, String> texts) {
        String exact = texts.get(iri);
        if (exact != null) {
            return exact;
        }
        for (Map.Entry<String, String> e : texts.entrySet()) {
            if (e.getValue() != null && iri.endsWith("/" + e.getKey())) {
                return e.getValue();
            }
        }
        return null;
    }

    /** A copy of {@code node} with every object's keys in sorted order. */
    static JsonNode sorted(JsonNode node) {
        if (node.isObject()) {
            TreeMap<String, JsonNode> fields = new TreeMap<>();
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                fields.put(e.getKey(), sorted(e.getValue()));
            }
            ObjectNode out = JsonNodeFactory.instance.objectNode();
            fields.forEach(out::set);
            return out;
        }
        if (node.isArray()) {
            var out = JsonNodeFactory.instance.arrayNode();
            for (JsonNode element : node) {
                out.add(sorted(element));
            }
            return out;
        }
        return node;
    }

    /** Immutable (the trees are never modified after parsing), so thread-safe. */
    record Parsed(
            String text,
            String canonical,
            List<SchemaReference> references,
            JsonNode node,
            Map<String, JsonNode> referenced,
            SpecificationVersion draft)
            implements JsonParsedSchema {
        @Override
        public SchemaType type() {
            return SchemaType.JSON;
        }

        @Override
        public String toString() {
            return "JSON " + canonical;
        }
    }
}
