package io.tierlog.compactor.archviolation;

import io.tierlog.iceberg.TopicTables;

/** Deliberate violation (ModuleRulesBiteTest): the compactor talking to the Iceberg tables. */
final class CompactorSyncsTables {
    private CompactorSyncsTables() {}

    static void sync(TopicTables tables, String topic) {
        tables.sync(topic);
    }
}
