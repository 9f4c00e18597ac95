package io.tierlog.engine.archviolation;

import org.apache.iceberg.catalog.TableIdentifier;

/** Deliberate violation (ModuleRulesBiteTest): the engine using Iceberg's own types. */
final class EngineNamesAnIcebergTable {
    private EngineNamesAnIcebergTable() {}

    static String name(String topic) {
        return TableIdentifier.of("tierlog", topic).toString();
    }
}
