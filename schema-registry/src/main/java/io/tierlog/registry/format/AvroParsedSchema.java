package io.tierlog.registry.format;

import io.tierlog.registry.ParsedSchema;

/** An Avro schema; {@link #avro()} is Avro's own model, for use inside this module. */
public interface AvroParsedSchema extends ParsedSchema {
    org.apache.avro.Schema avro();
}
