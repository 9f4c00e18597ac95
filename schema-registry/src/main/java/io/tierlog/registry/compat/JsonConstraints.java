package io.tierlog.registry.compat;

import java.math.BigDecimal;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * The value constraints of Confluent's JSON Schema compatibility rules: a reader may accept more
 * values than its writer (a bound removed, raised or lowered the loose way; a pattern removed; an
 * enum extended) but never fewer. Each check reports Confluent's difference name, such as {@code
 * MAX_LENGTH_DECREASED} or {@code ENUM_ARRAY_NARROWED}. Stateless.
 */
final class JsonConstraints {
    private JsonConstraints() {}

    /** Upper bounds: the reader's must be absent or at least the writer's. */
    private static final List<String> UPPER =
            List.of("maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties");

    /** Lower bounds: the reader's must be absent or at most the writer's. */
    private static final List<String> LOWER =
            List.of("minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties");

    static void check(JsonNode w, JsonNode r, String at, List<Issue> issues) {
        for (String keyword : UPPER) {
            bound(w, r, keyword, true, at, issues);
        }
        for (String keyword : LOWER) {
            bound(w, r, keyword, false, at, issues);
        }
        pattern(w, r, at, issues);
        multipleOf(w, r, at, issues);
        uniqueItems(w, r, at, issues);
        enumeration(w, r, at, issues);
        constant(w, r, at, issues);
    }

    /** A rule name from a keyword: maxLength -> MAX_LENGTH. */
    static String rule(String keyword) {
        StringBuilder out = new StringBuilder();
        for (char c : keyword.toCharArray()) {
            if (Character.isUpperCase(c)) {
                out.append('_');
            }
            out.append(Character.toUpperCase(c));
        }
        return out.toString();
    }

    private static void bound(
            JsonNode w, JsonNode r, String keyword, boolean upper, String at, List<Issue> issues) {
        JsonNode rb = r.get(keyword);
        if (rb == null) {
            return;
        }
        JsonNode wb = w.get(keyword);
        String where = at + "/" + keyword;
        if (rb.isBoolean()) {
            // draft 4: exclusiveMaximum/-Minimum are flags on maximum/minimum
            if (rb.asBoolean() && (wb == null || !wb.asBoolean())) {
                issues.add(
                        new Issue(
                                rule(keyword) + "_ADDED",
                                where,
                                "the reader makes its bound exclusive, the writer does not"));
            }
            return;
        }
        if (!rb.isNumber()) {
            return;
        }
        if (wb == null || !wb.isNumber()) {
            issues.add(
                    new Issue(
                            rule(keyword) + "_ADDED",
                            where,
                            "the reader sets "
                                    + keyword
                                    + " "
                                    + rb
                                    + ", the writer has no such bound"));
            return;
        }
        int cmp = rb.decimalValue().compareTo(wb.decimalValue());
        if (upper && cmp < 0) {
            issues.add(
                    new Issue(
                            rule(keyword) + "_DECREASED",
                            where,
                            keyword
                                    + " is "
                                    + wb
                                    + " in the writer schema and "
                                    + rb
                                    + " in the reader schema"));
        } else if (!upper && cmp > 0) {
            issues.add(
                    new Issue(
                            rule(keyword) + "_INCREASED",
                            where,
                            keyword
                                    + " is "
                                    + wb
                                    + " in the writer schema and "
                                    + rb
                                    + " in the reader schema"));
        }
    }

    private static void pattern(JsonNode w, JsonNode r, String at, List<Issue> issues) {
        JsonNode rp = r.get("pattern");
        if (rp == null) {
            return;
        }
        JsonNode wp = w.get("pattern");
        if (wp == null) {
            issues.add(
                    new Issue(
                            "PATTERN_ADDED",
                            at + "/pattern",
                            "the reader requires pattern " + rp + ", the writer none"));
        } else if (!wp.equals(rp)) {
            issues.add(
                    new Issue(
                            "PATTERN_CHANGED",
                            at + "/pattern",
                            "the pattern is "
                                    + wp
                                    + " in the writer schema and "
                                    + rp
                                    + " in the reader schema"));
        }
    }

    private static void multipleOf(JsonNode w, JsonNode r, String at, List<Issue> issues) {
        JsonNode rm = r.get("multipleOf");
        if (rm == null || !rm.isNumber()) {
            return;
        }
        JsonNode wm = w.get("multipleOf");
        if (wm == null || !wm.isNumber()) {
            issues.add(
                    new Issue(
                            "MULTIPLE_OF_ADDED",
                            at + "/multipleOf",
                            "the reader requires multiples of " + rm + ", the writer does not"));
            return;
        }
        BigDecimal remainder = wm.decimalValue().remainder(rm.decimalValue());
        if (remainder.signum() != 0) {
            issues.add(
                    new Issue(
                            "MULTIPLE_OF_EXPANDED",
                            at + "/multipleOf",
                            "the writer's multipleOf "
                                    + wm
                                    + " is not a multiple of the reader's "
                                    + rm));
        }
    }

    private static void uniqueItems(JsonNode w, JsonNode r, String at, List<Issue> issues) {
        boolean ru = r.has("uniqueItems") && r.get("uniqueItems").asBoolean();
        boolean wu = w.has("uniqueItems") && w.get("uniqueItems").asBoolean();
        if (ru && !wu) {
            issues.add(
                    new Issue(
                            "UNIQUE_ITEMS_ADDED",
                            at + "/uniqueItems",
                            "the reader requires unique items, the writer does not"));
        }
    }

    private static void enumeration(JsonNode w, JsonNode r, String at, List<Issue> issues) {
        JsonNode re = r.get("enum");
        if (re == null || !re.isArray()) {
            return;
        }
        JsonNode we = w.get("enum");
        if (we == null || !we.isArray()) {
            JsonNode wc = w.get("const");
            if (wc != null && contains(re, wc)) {
                return;
            }
            issues.add(
                    new Issue(
                            "ENUM_ARRAY_NARROWED",
                            at + "/enum",
                            "the reader allows only " + re + ", the writer any value"));
            return;
        }
        for (JsonNode value : we) {
            if (!contains(re, value)) {
                issues.add(
                        new Issue(
                                covers(we, re) ? "ENUM_ARRAY_NARROWED" : "ENUM_ARRAY_CHANGED",
                                at + "/enum",
                                "the writer allows "
                                        + value
                                        + ", the reader's enum "
                                        + re
                                        + " does not"));
                return;
            }
        }
    }

    private static void constant(JsonNode w, JsonNode r, String at, List<Issue> issues) {
        JsonNode rc = r.get("const");
        if (rc == null) {
            return;
        }
        JsonNode wc = w.get("const");
        JsonNode we = w.get("enum");
        boolean ok =
                (wc != null && wc.equals(rc))
                        || (wc == null
                                && we != null
                                && we.isArray()
                                && we.size() == 1
                                && we.get(0).equals(rc));
        if (!ok) {
            issues.add(
                    new Issue(
                            wc == null ? "CONST_ADDED" : "CONST_CHANGED",
                            at + "/const",
                            "the reader allows only "
                                    + rc
                                    + ", the writer "
                                    + (wc == null ? "other values" : wc)));
        }
    }

    private static boolean contains(JsonNode array, JsonNode value) {
        for (JsonNode element : array) {
            if (element.equals(value)) {
                return true;
            }
        }
        return false;
    }

    private static boolean covers(JsonNode outer, JsonNode inner) {
        for (JsonNode element : inner) {
            if (!contains(outer, element)) {
                return false;
            }
        }
        return true;
    }
}
