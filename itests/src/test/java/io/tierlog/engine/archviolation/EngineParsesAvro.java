package io.tierlog.engine.archviolation;

import org.apache.avro.Schema;

/** Deliberate violation (ModuleRulesBiteTest): a schema library outside the schema registry. */
final class EngineParsesAvro {
    private EngineParsesAvro() {}

    static Schema parse(String text) {
        return new Schema.Parser().parse(text);
    }
}
