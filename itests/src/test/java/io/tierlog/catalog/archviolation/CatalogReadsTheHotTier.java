package io.tierlog.catalog.archviolation;

import io.tierlog.hot.TopicNames;

/** Deliberate violation (ModuleRulesBiteTest): the catalog depending on the hot tier. */
final class CatalogReadsTheHotTier {
    private CatalogReadsTheHotTier() {}

    static void check(String topic) {
        TopicNames.validate(topic);
    }
}
