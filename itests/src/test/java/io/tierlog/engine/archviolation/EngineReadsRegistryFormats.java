package io.tierlog.engine.archviolation;

import io.tierlog.registry.format.AvroParsedSchema;

/** Deliberate violation (ModuleRulesBiteTest): the registry's format internals used outside it. */
final class EngineReadsRegistryFormats {
    private EngineReadsRegistryFormats() {}

    static String canonical(AvroParsedSchema schema) {
        return schema.canonical();
    }
}
