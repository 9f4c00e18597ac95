package io.tierlog.registry;

/**
 * Confluent's compatibility levels. BACKWARD: a reader with the new schema reads data written with
 * the latest registered one; FORWARD: a reader with the latest reads data written with the new one;
 * FULL: both; {@code _TRANSITIVE}: against every registered version, not just the latest; NONE: no
 * check.
 */
public enum CompatibilityLevel {
    BACKWARD,
    BACKWARD_TRANSITIVE,
    FORWARD,
    FORWARD_TRANSITIVE,
    FULL,
    FULL_TRANSITIVE,
    NONE;

    /** The default of a registry with no configured level. */
    public static final CompatibilityLevel DEFAULT = BACKWARD;

    /** True when a new schema is checked against every version, not only the latest. */
    public boolean transitive() {
        return this == BACKWARD_TRANSITIVE || this == FORWARD_TRANSITIVE || this == FULL_TRANSITIVE;
    }

    /** True when data written with the previous schema must be readable with the new one. */
    public boolean backward() {
        return this == BACKWARD
                || this == BACKWARD_TRANSITIVE
                || this == FULL
                || this == FULL_TRANSITIVE;
    }

    /** True when data written with the new schema must be readable with the previous one. */
    public boolean forward() {
        return this == FORWARD
                || this == FORWARD_TRANSITIVE
                || this == FULL
                || this == FULL_TRANSITIVE;
    }
}
