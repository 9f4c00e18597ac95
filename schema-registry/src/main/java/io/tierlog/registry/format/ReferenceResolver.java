package io.tierlog.registry.format;

import io.tierlog.registry.RegisteredSchema;
import io.tierlog.registry.SchemaReference;

/** Finds the registered schema a reference names (the registry's store, or a test's map). */
@FunctionalInterface
public interface ReferenceResolver {
    /**
     * @throws io.tierlog.registry.SchemaRegistryException 42201 when the subject or version does
     *     not exist
     */
    RegisteredSchema resolve(SchemaReference reference);
}
