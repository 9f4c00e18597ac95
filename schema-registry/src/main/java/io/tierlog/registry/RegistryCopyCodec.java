package io.tierlog.registry;

import io.tierlog.catalog.SchemaStore;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON of the registry's copy in the bucket (see docs/formats.md "Schema registry copy"): one
 * document per schema and one per scope (a subject with its counters, versions and settings, or the
 * registry-wide settings). Here because the registry module owns the JSON library; the engine
 * decides where the documents go. Encoding is deterministic (same rows, same bytes), so a copy can
 * be compared byte for byte. Stateless and thread-safe.
 */
public final class RegistryCopyCodec {
    private static final ObjectMapper MAPPER = JsonMapper.builder().build();

    /**
     * One scope's rows.
     *
     * @param scope a subject, or {@link SchemaStore#GLOBAL}
     * @param counters the subject's counters, absent for a scope that only has settings
     */
    public record Scope(
            String scope,
            Optional<SchemaStore.Counters> counters,
            List<SchemaStore.Version> versions,
            Map<String, String> config) {
        public Scope {
            versions = List.copyOf(versions);
            config = Map.copyOf(config);
        }
    }

    /** A copy document that cannot be read back. */
    public static final class DamagedException extends Exception {
        private static final long serialVersionUID = 1L;

        DamagedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private RegistryCopyCodec() {}

    public static byte[] encode(SchemaStore.Schema s) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("format", 1);
        n.put("id", s.id());
        n.put("schemaType", s.type());
        n.put("schema", s.text());
        n.put("fingerprint", s.fingerprint());
        ArrayNode refs = n.putArray("references");
        for (SchemaStore.Reference r : s.references()) {
            ObjectNode rn = refs.addObject();
            rn.put("name", r.name());
            rn.put("subject", r.subject());
            rn.put("version", r.version());
            rn.put("schemaId", r.schemaId());
        }
        return MAPPER.writeValueAsBytes(n);
    }

    public static SchemaStore.Schema decodeSchema(byte[] json) throws DamagedException {
        try {
            JsonNode n = MAPPER.readTree(json);
            List<SchemaStore.Reference> refs = new ArrayList<>();
            for (JsonNode r : required(n, "references")) {
                refs.add(
                        new SchemaStore.Reference(
                                textOf(r, "name"),
                                textOf(r, "subject"),
                                intOf(r, "version"),
                                intOf(r, "schemaId")));
            }
            return new SchemaStore.Schema(
                    intOf(n, "id"),
                    textOf(n, "schemaType"),
                    textOf(n, "schema"),
                    textOf(n, "fingerprint"),
                    refs);
        } catch (JacksonException | IllegalArgumentException | NullPointerException e) {
            throw damaged(json, e);
        }
    }

    public static byte[] encode(Scope s) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("format", 1);
        n.put("scope", s.scope());
        s.counters()
                .ifPresent(
                        c -> {
                            n.put("nextVersion", c.nextVersion());
                            n.put("nextFieldId", c.nextFieldId());
                        });
        ArrayNode versions = n.putArray("versions");
        for (SchemaStore.Version v : s.versions()) {
            ObjectNode vn = versions.addObject();
            vn.put("version", v.version());
            vn.put("schemaId", v.schemaId());
            vn.put("deleted", v.deleted());
            ObjectNode ids = vn.putObject("fieldIds");
            new TreeMap<>(v.fieldIds()).forEach(ids::put);
        }
        ObjectNode config = n.putObject("config");
        new TreeMap<>(s.config()).forEach(config::put);
        return MAPPER.writeValueAsBytes(n);
    }

    public static Scope decodeScope(byte[] json) throws DamagedException {
        try {
            JsonNode n = MAPPER.readTree(json);
            String scope = textOf(n, "scope");
            Optional<SchemaStore.Counters> counters =
                    n.has("nextVersion")
                            ? Optional.of(
                                    new SchemaStore.Counters(
                                            scope,
                                            intOf(n, "nextVersion"),
                                            intOf(n, "nextFieldId")))
                            : Optional.empty();
            List<SchemaStore.Version> versions = new ArrayList<>();
            for (JsonNode v : required(n, "versions")) {
                Map<String, Integer> ids = new LinkedHashMap<>();
                for (Map.Entry<String, JsonNode> e : required(v, "fieldIds").properties()) {
                    if (!e.getValue().isInt()) {
                        throw new IllegalArgumentException("field id of '" + e.getKey() + "'");
                    }
                    ids.put(e.getKey(), e.getValue().intValue());
                }
                versions.add(
                        new SchemaStore.Version(
                                scope,
                                intOf(v, "version"),
                                intOf(v, "schemaId"),
                                booleanOf(v, "deleted"),
                                ids));
            }
            Map<String, String> config = new TreeMap<>();
            for (Map.Entry<String, JsonNode> e : required(n, "config").properties()) {
                config.put(e.getKey(), e.getValue().asString());
            }
            return new Scope(scope, counters, versions, config);
        } catch (JacksonException | IllegalArgumentException | NullPointerException e) {
            throw damaged(json, e);
        }
    }

    private static boolean booleanOf(JsonNode n, String field) {
        JsonNode v = required(n, field);
        if (!v.isBoolean()) {
            throw new IllegalArgumentException("field '" + field + "' is not a boolean");
        }
        return v.booleanValue();
    }

    private static int intOf(JsonNode n, String field) {
        JsonNode v = required(n, field);
        if (!v.isInt()) {
            throw new IllegalArgumentException("field '" + field + "' is not an int");
        }
        return v.intValue();
    }

    private static String textOf(JsonNode n, String field) {
        JsonNode v = required(n, field);
        if (!v.isString()) {
            throw new IllegalArgumentException("field '" + field + "' is not a string");
        }
        return v.asString();
    }

    private static JsonNode required(JsonNode n, String field) {
        JsonNode v = n == null ? null : n.get(field);
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException("missing field '" + field + "'");
        }
        return v;
    }

    private static DamagedException damaged(byte[] json, Exception e) {
        String head = new String(json, 0, Math.min(json.length, 40), StandardCharsets.UTF_8);
        return new DamagedException(
                "not a registry copy document (" + e.getMessage() + "): " + head, e);
    }
}
