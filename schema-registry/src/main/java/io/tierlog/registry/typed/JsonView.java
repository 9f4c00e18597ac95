package io.tierlog.registry.typed;

import io.tierlog.common.typed.TypedType;
import io.tierlog.common.typed.TypedType.Kind;
import io.tierlog.registry.format.JsonParsedSchema;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The typed view of a JSON Schema, and the decoder of JSON payloads (a Jackson tree read along the
 * schema). Mapping: an object with {@code properties} = struct (declared properties, in declaration
 * order; undeclared properties of a payload are ignored); an object with only an {@code
 * additionalProperties} schema = map with STRING keys; {@code integer} = LONG; {@code number} =
 * DOUBLE; {@code string} (any format) and a string {@code enum} = STRING; {@code boolean} =
 * BOOLEAN; {@code array} with one {@code items} schema = list. A type {@code [T, "null"]} and an
 * {@code anyOf}/{@code oneOf} of T and null are T. {@code $ref} is followed within the document
 * ({@code #/definitions/...}, {@code #/$defs/...}) and into referenced schemas by reference name.
 * Left out: other unions, tuples, {@code allOf}, a schema nested in itself, objects with nothing
 * left. A payload value of the wrong JSON type for its declared property fails the record (reason
 * {@code decode}); JSON null is a null field. Immutable, so thread-safe.
 */
final class JsonView implements VersionView {
    private static final ObjectMapper MAPPER = JsonMapper.builder().build();

    /** Ids for probing whether a schema has a view, without recording anything. */
    private static final FieldIds PROBE =
            new FieldIds() {
                @Override
                int id(String path) {
                    return 1;
                }
            };

    private final Node root;

    private JsonView(Node root) {
        this.root = root;
    }

    static JsonView of(JsonParsedSchema schema, FieldIds ids) {
        Ctx ctx = new Ctx(schema.node(), schema.referenced());
        Node root = build(schema.node(), schema.node(), "", ids, ctx);
        return root instanceof ObjectNode ? new JsonView(root) : null;
    }

    @Override
    public TypedType.Struct struct() {
        return (TypedType.Struct) root.type;
    }

    @Override
    public boolean protobuf() {
        return false;
    }

    @Override
    public Object[] decode(ByteBuffer body, List<Integer> messageIndexes) throws Exception {
        JsonNode tree =
                body.hasArray()
                        ? MAPPER.readTree(
                                body.array(),
                                body.arrayOffset() + body.position(),
                                body.remaining())
                        : MAPPER.readTree(VersionView.bytes(body));
        return (Object[]) root.read(tree, "");
    }

    private record Ctx(JsonNode root, Map<String, JsonNode> referenced, Set<JsonNode> building) {
        Ctx(JsonNode root, Map<String, JsonNode> referenced) {
            this(root, referenced, Collections.newSetFromMap(new IdentityHashMap<>()));
        }
    }

    private abstract static class Node {
        final TypedType type;

        Node(TypedType type) {
            this.type = type;
        }

        abstract Object read(JsonNode value, String path);
    }

    /** Follows {@code $ref}s; null when a reference cannot be resolved. */
    private static JsonNode[] resolve(JsonNode schema, JsonNode doc, Ctx ctx) {
        for (int hops = 0; hops < 64 && schema != null && schema.isObject(); hops++) {
            JsonNode ref = schema.get("$ref");
            if (ref == null || !ref.isString()) {
                return new JsonNode[] {schema, doc};
            }
            String r = ref.stringValue();
            int hash = r.indexOf('#');
            String file = hash < 0 ? r : r.substring(0, hash);
            String pointer = hash < 0 ? "" : r.substring(hash + 1);
            if (!file.isEmpty()) {
                doc = ctx.referenced().get(file);
                if (doc == null) {
                    return null;
                }
            }
            schema = pointer.isEmpty() ? doc : doc.at(pointer);
            if (schema.isMissingNode()) {
                return null;
            }
        }
        return schema != null && schema.isObject() ? new JsonNode[] {schema, doc} : null;
    }

    private static String type(JsonNode s, List<JsonNode> alt) {
        JsonNode t = s.get("type");
        if (t != null && t.isString()) {
            return t.stringValue();
        }
        if (t != null && t.isArray()) {
            String single = null;
            for (JsonNode e : t) {
                if (e.isString() && !e.stringValue().equals("null")) {
                    if (single != null) {
                        return null;
                    }
                    single = e.stringValue();
                }
            }
            return single;
        }
        for (String key : List.of("anyOf", "oneOf")) {
            JsonNode options = s.get(key);
            if (options != null && options.isArray()) {
                JsonNode single = null;
                for (JsonNode o : options) {
                    JsonNode ot = o.get("type");
                    if (ot != null && ot.isString() && ot.stringValue().equals("null")) {
                        continue;
                    }
                    if (single != null) {
                        return null;
                    }
                    single = o;
                }
                if (single != null) {
                    alt.add(single);
                    return "$alt";
                }
                return null;
            }
        }
        if (s.has("properties")) {
            return "object";
        }
        if (s.has("items")) {
            return "array";
        }
        JsonNode e = s.get("enum");
        if (e != null && e.isArray() && e.size() > 0) {
            for (JsonNode v : e) {
                if (!v.isString() && !v.isNull()) {
                    return null;
                }
            }
            return "string";
        }
        return null;
    }

    private static Node build(JsonNode schema, JsonNode doc, String path, FieldIds ids, Ctx ctx) {
        JsonNode[] resolved = resolve(schema, doc, ctx);
        if (resolved == null) {
            return null;
        }
        JsonNode s = resolved[0];
        doc = resolved[1];
        List<JsonNode> alt = new ArrayList<>(1);
        String type = type(s, alt);
        if (type == null) {
            return null;
        }
        switch (type) {
            case "$alt":
                return build(alt.get(0), doc, path, ids, ctx);
            case "integer":
                return new Prim(Kind.LONG);
            case "number":
                return new Prim(Kind.DOUBLE);
            case "string":
                return new Prim(Kind.STRING);
            case "boolean":
                return new Prim(Kind.BOOLEAN);
            case "array":
                {
                    JsonNode items = s.get("items");
                    if (items == null || !items.isObject()) {
                        return null;
                    }
                    String elementPath = FieldIds.child(path, "element");
                    if (build(items, doc, elementPath, PROBE, ctx) == null) {
                        return null;
                    }
                    int id = ids.id(elementPath);
                    Node element =
                            id == FieldIds.NONE ? null : build(items, doc, elementPath, ids, ctx);
                    return element == null ? null : new ArrayNode(id, element);
                }
            case "object":
                if (!ctx.building().add(s)) {
                    return null; // nested in itself
                }
                try {
                    return object(s, doc, path, ids, ctx);
                } finally {
                    ctx.building().remove(s);
                }
            default:
                return null;
        }
    }

    private static Node object(JsonNode s, JsonNode doc, String path, FieldIds ids, Ctx ctx) {
        JsonNode props = s.get("properties");
        if (props == null || !props.isObject() || props.isEmpty()) {
            JsonNode extra = s.get("additionalProperties");
            if (extra == null || !extra.isObject()) {
                return null;
            }
            String keyPath = FieldIds.child(path, "key");
            String valuePath = FieldIds.child(path, "value");
            if (build(extra, doc, valuePath, PROBE, ctx) == null) {
                return null;
            }
            int keyId = ids.id(keyPath);
            int valueId = ids.id(valuePath);
            if (keyId == FieldIds.NONE || valueId == FieldIds.NONE) {
                return null;
            }
            Node value = build(extra, doc, valuePath, ids, ctx);
            return value == null ? null : new MapNode(keyId, valueId, value);
        }
        List<String> names = new ArrayList<>();
        List<Node> children = new ArrayList<>();
        List<TypedType.Field> fields = new ArrayList<>();
        for (Map.Entry<String, JsonNode> p : props.properties()) {
            String childPath = FieldIds.child(path, p.getKey());
            if (build(p.getValue(), doc, childPath, PROBE, ctx) == null) {
                continue;
            }
            int id = ids.id(childPath);
            if (id == FieldIds.NONE) {
                continue;
            }
            Node child = build(p.getValue(), doc, childPath, ids, ctx);
            if (child != null) {
                names.add(p.getKey());
                children.add(child);
                fields.add(new TypedType.Field(id, p.getKey(), child.type, true));
            }
        }
        return fields.isEmpty()
                ? null
                : new ObjectNode(new TypedType.Struct(fields), names, children);
    }

    private static final class ObjectNode extends Node {
        private final String[] names;
        private final Node[] children;

        ObjectNode(TypedType.Struct type, List<String> names, List<Node> children) {
            super(type);
            this.names = names.toArray(new String[0]);
            this.children = children.toArray(new Node[0]);
        }

        @Override
        Object read(JsonNode value, String path) {
            if (!value.isObject()) {
                throw mismatch(path, "object", value);
            }
            Object[] row = new Object[names.length];
            for (int i = 0; i < names.length; i++) {
                JsonNode v = value.get(names[i]);
                if (v != null && !v.isNull()) {
                    row[i] = children[i].read(v, FieldIds.child(path, names[i]));
                }
            }
            return row;
        }
    }

    private static final class MapNode extends Node {
        private final Node value;

        MapNode(int keyId, int valueId, Node value) {
            super(
                    new TypedType.MapOf(
                            keyId,
                            new TypedType.Primitive(Kind.STRING),
                            valueId,
                            value.type,
                            true));
            this.value = value;
        }

        @Override
        Object read(JsonNode v, String path) {
            if (!v.isObject()) {
                throw mismatch(path, "object", v);
            }
            Map<String, Object> map = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> e : v.properties()) {
                map.put(
                        e.getKey(),
                        e.getValue().isNull() ? null : value.read(e.getValue(), path + ".value"));
            }
            return map;
        }
    }

    private static final class ArrayNode extends Node {
        private final Node element;

        ArrayNode(int elementId, Node element) {
            super(new TypedType.ListOf(elementId, element.type, true));
            this.element = element;
        }

        @Override
        Object read(JsonNode v, String path) {
            if (!v.isArray()) {
                throw mismatch(path, "array", v);
            }
            List<Object> list = new ArrayList<>(v.size());
            for (JsonNode e : v) {
                list.add(e.isNull() ? null : element.read(e, path + ".element"));
            }
            return list;
        }
    }

    private static final class Prim extends Node {
        private final Kind kind;

        Prim(Kind kind) {
            super(new TypedType.Primitive(kind));
            this.kind = kind;
        }

        @Override
        Object read(JsonNode v, String path) {
            switch (kind) {
                case LONG:
                    if (v.isIntegralNumber() && v.canConvertToLong()) {
                        return v.longValue();
                    }
                    if (v.isFloatingPointNumber()) {
                        // JSON Schema's integer accepts 1.0 (drafts 6 and later)
                        BigDecimal d = v.decimalValue();
                        try {
                            return d.longValueExact();
                        } catch (ArithmeticException e) {
                            throw mismatch(path, "integer", v);
                        }
                    }
                    throw mismatch(path, "integer", v);
                case DOUBLE:
                    if (v.isNumber()) {
                        return v.doubleValue();
                    }
                    throw mismatch(path, "number", v);
                case STRING:
                    if (v.isString()) {
                        return v.stringValue();
                    }
                    throw mismatch(path, "string", v);
                case BOOLEAN:
                    if (v.isBoolean()) {
                        return v.booleanValue();
                    }
                    throw mismatch(path, "boolean", v);
                default:
                    throw new IllegalStateException(kind.toString());
            }
        }
    }

    private static IllegalArgumentException mismatch(String path, String expected, JsonNode got) {
        return new IllegalArgumentException(
                "field "
                        + (path.isEmpty() ? "(root)" : path)
                        + ": expected "
                        + expected
                        + ", got "
                        + got.getNodeType().toString().toLowerCase(java.util.Locale.ROOT));
    }
}
