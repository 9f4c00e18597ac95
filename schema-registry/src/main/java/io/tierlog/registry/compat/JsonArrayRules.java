package io.tierlog.registry.compat;

import static io.tierlog.registry.compat.JsonRules.acceptsAll;
import static io.tierlog.registry.compat.JsonRules.isFalse;

import io.tierlog.registry.compat.JsonRules.S;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * The array part of {@link JsonRules}: {@code items} as one schema is compared as is; tuples
 * ({@code items} as an array up to draft 2019-09, {@code prefixItems} in 2020-12) follow the same
 * open / closed / partially open content model as object properties, with {@code additionalItems}
 * (or 2020-12's {@code items}) as the schema for items past the tuple. Stateless.
 */
final class JsonArrayRules {
    private JsonArrayRules() {}

    static void check(JsonRules rules, S w, S r, String at, List<Issue> issues) {
        JsonNode wn = w.node();
        JsonNode rn = r.node();
        JsonNode wTuple = tuple(wn);
        JsonNode rTuple = tuple(rn);
        JsonNode wItems = wTuple == null ? wn.get("items") : null;
        JsonNode rItems = rTuple == null ? rn.get("items") : null;
        if (wTuple == null && rTuple == null) {
            if (rItems != null) {
                if (wItems == null) {
                    if (!acceptsAll(rItems)) {
                        issues.add(
                                new Issue(
                                        "ITEMS_NARROWED",
                                        at + "/items",
                                        "the writer allows any items, the reader " + rItems));
                    }
                } else {
                    rules.compare(
                            new S(wItems, w.root()),
                            new S(rItems, r.root()),
                            at + "/items",
                            issues);
                }
            }
            return;
        }
        int size = Math.max(size(wTuple), size(rTuple));
        for (int i = 0; i < size; i++) {
            String where = at + "/items/" + i;
            JsonNode wi = element(wTuple, wItems, i);
            JsonNode ri = element(rTuple, rItems, i);
            boolean wDeclared = wTuple != null && i < wTuple.size();
            boolean rDeclared = rTuple != null && i < rTuple.size();
            if (wDeclared && rDeclared) {
                rules.compare(new S(wi, w.root()), new S(ri, r.root()), where, issues);
            } else if (rDeclared) {
                JsonNode extra = extraItems(wn, wItems);
                if (extra == null) {
                    if (!acceptsAll(ri)) {
                        issues.add(
                                new Issue(
                                        "ITEM_ADDED_TO_OPEN_CONTENT_MODEL",
                                        where,
                                        "the writer's tuple is open, so old data may hold any value at "
                                                + i));
                    }
                } else if (!isFalse(extra)
                        && !rules.compare(new S(extra, w.root()), new S(ri, r.root()), where)
                                .isEmpty()) {
                    issues.add(
                            new Issue(
                                    "ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
                                    where,
                                    "the reader's item "
                                            + i
                                            + " does not accept all the writer allowed there"));
                }
            } else if (wDeclared) {
                JsonNode extra = extraItems(rn, rItems);
                if (extra != null && isFalse(extra)) {
                    issues.add(
                            new Issue(
                                    "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL",
                                    where,
                                    "the writer may write item "
                                            + i
                                            + ", which the reader's closed tuple refuses"));
                } else if (extra != null
                        && !rules.compare(new S(wi, w.root()), new S(extra, r.root()), where)
                                .isEmpty()) {
                    issues.add(
                            new Issue(
                                    "ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
                                    where,
                                    "the writer's item "
                                            + i
                                            + " is not accepted by the reader's schema for extra items"));
                }
            }
        }
        if (rTuple != null) {
            JsonNode rExtra = extraItems(rn, rItems);
            JsonNode wExtra = wTuple != null ? extraItems(wn, wItems) : wItems;
            if (rExtra != null && !acceptsAll(rExtra)) {
                if (wExtra == null || acceptsAll(wExtra)) {
                    issues.add(
                            new Issue(
                                    "ADDITIONAL_ITEMS_NARROWED",
                                    at + "/additionalItems",
                                    "the writer allows any further items, the reader " + rExtra));
                } else if (!isFalse(wExtra)) {
                    rules.compare(
                            new S(wExtra, w.root()),
                            new S(rExtra, r.root()),
                            at + "/additionalItems",
                            issues);
                }
            }
        }
    }

    /** The tuple form's item schemas: {@code prefixItems} (2020-12) or an {@code items} array. */
    private static JsonNode tuple(JsonNode n) {
        if (n.has("prefixItems") && n.get("prefixItems").isArray()) {
            return n.get("prefixItems");
        }
        JsonNode items = n.get("items");
        return items != null && items.isArray() ? items : null;
    }

    /** The schema for items past the tuple: {@code items} (2020-12) or {@code additionalItems}. */
    private static JsonNode extraItems(JsonNode n, JsonNode itemsWhenNotTuple) {
        if (n.has("prefixItems")) {
            JsonNode items = n.get("items");
            return items == null || acceptsAll(items) ? null : items;
        }
        JsonNode extra = n.get("additionalItems");
        return extra == null || acceptsAll(extra) ? null : extra;
    }

    private static JsonNode element(JsonNode tuple, JsonNode items, int i) {
        if (tuple != null && i < tuple.size()) {
            return tuple.get(i);
        }
        return items;
    }

    private static int size(JsonNode tuple) {
        return tuple == null ? 0 : tuple.size();
    }
}
