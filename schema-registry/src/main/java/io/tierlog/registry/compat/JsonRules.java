package io.tierlog.registry.compat;

import io.tierlog.registry.format.JsonParsedSchema;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import tools.jackson.databind.JsonNode;

/**
 * JSON Schema compatibility as Confluent's registry documents it ("JSON Schema compatibility
 * rules"): a reader schema is compatible with a writer schema when it accepts every document the
 * writer accepts. Beyond the value constraints ({@link JsonConstraints}) that means:
 *
 * <ul>
 *   <li>types may widen ({@code TYPE_EXTENDED}; integer to number) but not narrow or change ({@code
 *       TYPE_NARROWED}, {@code TYPE_CHANGED});
 *   <li>objects follow the content model of the schema on the other side: a property added to an
 *       <em>open</em> writer (no {@code additionalProperties}, or true) is refused ({@code
 *       PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL}: old data may hold anything under that name); added
 *       to a <em>closed</em> writer ({@code additionalProperties: false}) it is fine unless
 *       required ({@code REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL}); added to a
 *       <em>partially open</em> writer (an {@code additionalProperties} or {@code
 *       patternProperties} schema) it must accept what that schema accepted ({@code
 *       PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL}); a property removed is fine
 *       when the reader is open, refused when it is closed ({@code
 *       PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL}) and checked against the reader's schema for
 *       extra properties when partially open; a newly required property is refused unless it has a
 *       default ({@code REQUIRED_ATTRIBUTE_ADDED}); {@code additionalProperties} may open but not
 *       close ({@code ADDITIONAL_PROPERTIES_NARROWED}); the same for tuple items;
 *   <li>{@code oneOf}/{@code anyOf} may gain branches but every writer branch must stay accepted by
 *       some reader branch ({@code SUM_TYPE_NARROWED}); {@code allOf} may lose conjuncts but not
 *       gain them ({@code PRODUCT_TYPE_EXTENDED}); {@code anyOf} becoming {@code oneOf} is {@code
 *       COMBINED_TYPE_CHANGED};
 *   <li>{@code $ref}s are followed (inside the document and into referenced schemas); recursive
 *       schemas are compared once per pair of locations.
 * </ul>
 *
 * Not thread-safe; one instance per check.
 */
final class JsonRules {
    private static final int MAX_REF_HOPS = 32;

    /** A schema node and the document its local {@code $ref}s resolve in. */
    record S(JsonNode node, JsonNode root) {}

    private final JsonParsedSchema reader;
    private final JsonParsedSchema writer;

    /**
     * Pairs being compared up the stack: a recursive schema meeting itself again is assumed fine.
     */
    private final Set<List<Object>> inProgress = new HashSet<>();

    JsonRules(JsonParsedSchema reader, JsonParsedSchema writer) {
        this.reader = reader;
        this.writer = writer;
    }

    List<Issue> check() {
        List<Issue> issues = new ArrayList<>();
        compare(
                new S(writer.node(), writer.node()),
                new S(reader.node(), reader.node()),
                "#",
                issues);
        return issues;
    }

    List<Issue> compare(S w, S r, String at) {
        List<Issue> issues = new ArrayList<>();
        compare(w, r, at, issues);
        return issues;
    }

    void compare(S w0, S r0, String at, List<Issue> issues) {
        S w = resolve(w0, writer.referenced());
        S r = resolve(r0, reader.referenced());
        if (w == null || r == null) {
            return; // a $ref the parser accepted but this walk cannot follow (by $id or anchor)
        }
        List<Object> pair = List.of(new Identity(w.node()), new Identity(r.node()));
        if (!inProgress.add(pair)) {
            return;
        }
        try {
            compareResolved(w, r, at, issues);
        } finally {
            inProgress.remove(pair);
        }
    }

    private void compareResolved(S w, S r, String at, List<Issue> issues) {
        JsonNode wn = w.node();
        JsonNode rn = r.node();
        if (acceptsAll(rn) || isFalse(wn)) {
            return;
        }
        if (isFalse(rn)) {
            issues.add(
                    new Issue(
                            "TYPE_NARROWED", at, "the reader schema is false and accepts nothing"));
            return;
        }
        if (wn.isBoolean()) {
            // writer true, reader constrained
            issues.add(
                    new Issue(
                            "TYPE_NARROWED", at, "the writer accepts any value, the reader " + rn));
            return;
        }
        if (combined(w, r, at, issues)) {
            return;
        }
        types(wn, rn, at, issues);
        JsonConstraints.check(wn, rn, at, issues);
        objects(w, r, at, issues);
        JsonArrayRules.check(this, w, r, at, issues);
        JsonNode rNot = rn.get("not");
        if (rNot != null) {
            JsonNode wNot = wn.get("not");
            if (wNot == null) {
                issues.add(
                        new Issue(
                                "NOT_TYPE_EXTENDED",
                                at + "/not",
                                "the reader excludes " + rNot + ", the writer nothing"));
            } else {
                // what the reader excludes must already be excluded by the writer
                for (Issue i : compare(new S(rNot, r.root()), new S(wNot, w.root()), at + "/not")) {
                    issues.add(new Issue("NOT_TYPE_EXTENDED", i.location(), i.description()));
                }
            }
        }
    }

    /** oneOf / anyOf / allOf; true when it decided the comparison. */
    private boolean combined(S w, S r, String at, List<Issue> issues) {
        JsonNode wn = w.node();
        JsonNode rn = r.node();
        String wSumKey = wn.has("oneOf") ? "oneOf" : wn.has("anyOf") ? "anyOf" : null;
        String rSumKey = rn.has("oneOf") ? "oneOf" : rn.has("anyOf") ? "anyOf" : null;
        if (wSumKey != null) {
            if ("anyOf".equals(wSumKey) && "oneOf".equals(rSumKey)) {
                issues.add(
                        new Issue(
                                "COMBINED_TYPE_CHANGED",
                                at,
                                "the writer's anyOf became oneOf in the reader, which refuses values matching several branches"));
            }
            JsonNode branches = wn.get(wSumKey);
            for (int i = 0; i < branches.size(); i++) {
                compare(new S(branches.get(i), w.root()), r, at + "/" + wSumKey + "/" + i, issues);
            }
            return true;
        }
        if (rSumKey != null) {
            JsonNode branches = rn.get(rSumKey);
            List<Issue> first = null;
            for (int i = 0; i < branches.size(); i++) {
                List<Issue> attempt =
                        compare(w, new S(branches.get(i), r.root()), at + "/" + rSumKey + "/" + i);
                if (attempt.isEmpty()) {
                    return true;
                }
                if (first == null) {
                    first = attempt;
                }
            }
            issues.add(
                    new Issue(
                            "SUM_TYPE_NARROWED",
                            at + "/" + rSumKey,
                            "no branch of the reader's "
                                    + rSumKey
                                    + " accepts the writer's schema "
                                    + wn
                                    + (first == null
                                            ? ""
                                            : "; against the first branch: " + first)));
            return true;
        }
        JsonNode rAll = rn.get("allOf");
        JsonNode wAll = wn.get("allOf");
        if (rAll != null || wAll != null) {
            if (rAll != null && wAll != null && rAll.size() > wAll.size()) {
                issues.add(
                        new Issue(
                                "PRODUCT_TYPE_EXTENDED",
                                at + "/allOf",
                                "the reader's allOf has "
                                        + rAll.size()
                                        + " conjuncts, the writer's "
                                        + wAll.size()));
                return true;
            }
            if (rAll != null) {
                for (int i = 0; i < rAll.size(); i++) {
                    S conjunct = new S(rAll.get(i), r.root());
                    if (wAll == null) {
                        compare(w, conjunct, at + "/allOf/" + i, issues);
                    } else if (!anyWriterConjunctFits(wAll, w.root(), conjunct, at)) {
                        issues.add(
                                new Issue(
                                        "PRODUCT_TYPE_NARROWED",
                                        at + "/allOf/" + i,
                                        "no conjunct of the writer's allOf satisfies the reader's "
                                                + rAll.get(i)));
                    }
                }
            } else {
                if (!anyWriterConjunctFits(wAll, w.root(), r, at)) {
                    issues.add(
                            new Issue(
                                    "COMBINED_TYPE_CHANGED",
                                    at + "/allOf",
                                    "no conjunct of the writer's allOf satisfies the reader's schema "
                                            + rn));
                }
            }
            return true;
        }
        return false;
    }

    private boolean anyWriterConjunctFits(JsonNode wAll, JsonNode wRoot, S r, String at) {
        for (int j = 0; j < wAll.size(); j++) {
            if (compare(new S(wAll.get(j), wRoot), r, at + "/allOf/" + j).isEmpty()) {
                return true;
            }
        }
        return false;
    }

    private static void types(JsonNode w, JsonNode r, String at, List<Issue> issues) {
        Set<String> rt = typeSet(r);
        if (rt == null) {
            return;
        }
        Set<String> wt = typeSet(w);
        if (wt == null) {
            issues.add(
                    new Issue(
                            "TYPE_NARROWED",
                            at + "/type",
                            "the writer allows any type, the reader only " + rt));
            return;
        }
        Set<String> missing = new LinkedHashSet<>();
        for (String t : wt) {
            if (!rt.contains(t) && !(t.equals("integer") && rt.contains("number"))) {
                missing.add(t);
            }
        }
        boolean narrowedNumber = wt.contains("number") && rt.contains("integer");
        if (missing.size() == wt.size() && !narrowedNumber) {
            issues.add(
                    new Issue(
                            "TYPE_CHANGED",
                            at + "/type",
                            "the type is "
                                    + wt
                                    + " in the writer schema and "
                                    + rt
                                    + " in the reader schema"));
        } else if (!missing.isEmpty()) {
            issues.add(
                    new Issue(
                            "TYPE_NARROWED",
                            at + "/type",
                            "the reader no longer allows "
                                    + missing
                                    + " (writer "
                                    + wt
                                    + ", reader "
                                    + rt
                                    + ")"));
        }
    }

    /** The types {@code node} allows, null for any. */
    private static Set<String> typeSet(JsonNode node) {
        JsonNode type = node.get("type");
        if (type == null) {
            return null;
        }
        Set<String> out = new LinkedHashSet<>();
        if (type.isArray()) {
            type.forEach(t -> out.add(t.asString()));
        } else {
            out.add(type.asString());
        }
        return out;
    }

    // ---- objects

    private void objects(S w, S r, String at, List<Issue> issues) {
        JsonNode wn = w.node();
        JsonNode rn = r.node();
        JsonNode wProps = wn.path("properties");
        JsonNode rProps = rn.path("properties");
        Set<String> names = new LinkedHashSet<>();
        wProps.propertyNames().forEach(names::add);
        rProps.propertyNames().forEach(names::add);
        Set<String> rRequired = strings(rn.get("required"));
        Set<String> wRequired = strings(wn.get("required"));
        for (String name : names) {
            String where = at + "/properties/" + name;
            JsonNode wp = wProps.get(name);
            JsonNode rp = rProps.get(name);
            if (wp != null && rp != null) {
                compare(new S(wp, w.root()), new S(rp, r.root()), where, issues);
            } else if (rp != null) {
                S covering = extraSchema(w, name);
                if (covering == null) {
                    if (!acceptsAll(rp)) {
                        issues.add(
                                new Issue(
                                        "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL",
                                        where,
                                        "the writer's content model is open, so old data may hold '"
                                                + name
                                                + "' with any value; the reader requires "
                                                + rp));
                    }
                } else if (isFalse(covering.node())) {
                    if (rRequired.contains(name) && !rp.has("default")) {
                        issues.add(
                                new Issue(
                                        "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL",
                                        where,
                                        "the reader requires '"
                                                + name
                                                + "', which the writer's closed content model never wrote"));
                    }
                } else if (!compare(covering, new S(rp, r.root()), where).isEmpty()) {
                    issues.add(
                            new Issue(
                                    "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
                                    where,
                                    "the reader's '"
                                            + name
                                            + "' "
                                            + rp
                                            + " does not accept all the writer allowed for it: "
                                            + covering.node()));
                }
            } else {
                S covering = extraSchema(r, name);
                if (covering != null && isFalse(covering.node())) {
                    issues.add(
                            new Issue(
                                    "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL",
                                    where,
                                    "the writer may write '"
                                            + name
                                            + "', which the reader's closed content model refuses"));
                } else if (covering != null
                        && !compare(new S(wp, w.root()), covering, where).isEmpty()) {
                    issues.add(
                            new Issue(
                                    "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
                                    where,
                                    "the writer's '"
                                            + name
                                            + "' "
                                            + wp
                                            + " is not accepted by the reader's schema for other properties "
                                            + covering.node()));
                }
            }
        }
        for (String name : rRequired) {
            if (wRequired.contains(name)) {
                continue;
            }
            JsonNode rp = rProps.get(name);
            boolean reportedAsUnopen =
                    wProps.get(name) == null
                            && rp != null
                            && extraSchema(w, name) != null
                            && isFalse(extraSchema(w, name).node());
            if (!reportedAsUnopen && (rp == null || !rp.has("default"))) {
                issues.add(
                        new Issue(
                                "REQUIRED_ATTRIBUTE_ADDED",
                                at + "/required",
                                "the reader requires '" + name + "', the writer does not"));
            }
        }
        additional(w, r, "additionalProperties", at, issues);
        JsonNode rDeps =
                rn.has("dependentRequired") ? rn.get("dependentRequired") : rn.get("dependencies");
        if (rDeps != null && rDeps.isObject()) {
            JsonNode wDeps =
                    wn.has("dependentRequired")
                            ? wn.get("dependentRequired")
                            : wn.get("dependencies");
            for (String key : rDeps.propertyNames()) {
                if (wDeps == null || !rDeps.get(key).equals(wDeps.get(key))) {
                    issues.add(
                            new Issue(
                                    "DEPENDENCY_ADDED",
                                    at + "/dependencies/" + key,
                                    "the reader adds or changes the dependency of '" + key + "'"));
                }
            }
        }
    }

    /**
     * The schema governing a property {@code name} that {@code s} does not declare: a matching
     * {@code patternProperties} schema, else {@code additionalProperties}; null when the content
     * model is open (either is absent or true), a false node when it is closed.
     */
    private static S extraSchema(S s, String name) {
        JsonNode patterns = s.node().get("patternProperties");
        if (patterns != null && patterns.isObject()) {
            for (Map.Entry<String, JsonNode> p : patterns.properties()) {
                try {
                    if (Pattern.compile(p.getKey()).matcher(name).find()) {
                        return acceptsAll(p.getValue()) ? null : new S(p.getValue(), s.root());
                    }
                } catch (PatternSyntaxException e) {
                    // an ECMA pattern Java cannot compile: treat as not matching
                }
            }
        }
        JsonNode extra = s.node().get("additionalProperties");
        if (extra == null || acceptsAll(extra)) {
            return null;
        }
        return new S(extra, s.root());
    }

    private void additional(S w, S r, String keyword, String at, List<Issue> issues) {
        JsonNode ra = r.node().get(keyword);
        if (ra == null || acceptsAll(ra)) {
            return;
        }
        JsonNode wa = w.node().get(keyword);
        String where = at + "/" + keyword;
        String rule =
                keyword.equals("additionalProperties")
                        ? "ADDITIONAL_PROPERTIES_NARROWED"
                        : "ADDITIONAL_ITEMS_NARROWED";
        if (wa == null || acceptsAll(wa)) {
            issues.add(
                    new Issue(
                            rule,
                            where,
                            "the writer's content model is open, the reader's "
                                    + keyword
                                    + " is "
                                    + ra));
        } else if (!isFalse(wa)) {
            for (Issue i : compare(new S(wa, w.root()), new S(ra, r.root()), where)) {
                issues.add(i);
            }
        }
    }

    // ---- helpers

    static boolean acceptsAll(JsonNode n) {
        return (n.isBoolean() && n.asBoolean()) || (n.isObject() && n.isEmpty());
    }

    static boolean isFalse(JsonNode n) {
        return n.isBoolean() && !n.asBoolean();
    }

    private static Set<String> strings(JsonNode array) {
        Set<String> out = new LinkedHashSet<>();
        if (array != null && array.isArray()) {
            array.forEach(v -> out.add(v.asString()));
        }
        return out;
    }

    /** Follows {@code $ref}s to the schema they name; null when one cannot be followed. */
    private static S resolve(S s, Map<String, JsonNode> referenced) {
        S current = s;
        for (int hops = 0; hops < MAX_REF_HOPS; hops++) {
            JsonNode ref = current.node().isObject() ? current.node().get("$ref") : null;
            if (ref == null || !ref.isString()) {
                return current;
            }
            String target = ref.asString();
            int hash = target.indexOf('#');
            String base = hash < 0 ? target : target.substring(0, hash);
            String fragment = hash < 0 ? "" : target.substring(hash + 1);
            JsonNode doc = base.isEmpty() ? current.root() : document(base, referenced);
            if (doc == null) {
                return null;
            }
            JsonNode node =
                    fragment.isEmpty() ? doc : fragment.startsWith("/") ? doc.at(fragment) : null;
            if (node == null || node.isMissingNode()) {
                return null;
            }
            current = new S(node, doc);
        }
        return null;
    }

    private static JsonNode document(String base, Map<String, JsonNode> referenced) {
        JsonNode exact = referenced.get(base);
        if (exact != null) {
            return exact;
        }
        for (Map.Entry<String, JsonNode> e : referenced.entrySet()) {
            if (base.endsWith("/" + e.getKey()) || e.getKey().endsWith("/" + base)) {
                return e.getValue();
            }
        }
        return null;
    }

    /** Identity of a tree node, for the recursion guard (Jackson nodes compare by value). */
    private record Identity(JsonNode node) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Identity other && other.node == node;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(node);
        }
    }
}
