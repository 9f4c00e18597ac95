package io.tierlog.registry;

import java.util.Locale;

/**
 * Confluent's registry modes ({@code GET/PUT /mode}). READWRITE is the default; READONLY (and
 * READONLY_OVERRIDE) refuse registrations and deletes with 42205. IMPORT (registering under given
 * ids) is not offered: a PUT of it is refused with 42204.
 */
public enum RegistryMode {
    READWRITE,
    READONLY,
    READONLY_OVERRIDE;

    /** The default of a registry and subject with no mode set. */
    public static final RegistryMode DEFAULT = READWRITE;

    /**
     * The mode named {@code name}.
     *
     * @throws SchemaRegistryException 42204 for an unknown or unsupported mode
     */
    public static RegistryMode of(String name) {
        if (name != null) {
            for (RegistryMode m : values()) {
                if (m.name().equals(name.toUpperCase(Locale.ROOT))) {
                    return m;
                }
            }
        }
        throw new SchemaRegistryException(
                ErrorCodes.INVALID_MODE,
                "Invalid mode "
                        + name
                        + ": supported are READWRITE, READONLY and READONLY_OVERRIDE"
                        + " (IMPORT is not offered)");
    }

    /** True when writes are refused. */
    public boolean readOnly() {
        return this != READWRITE;
    }
}
