package io.tierlog.registry;

import java.util.Objects;
import java.util.Optional;

/**
 * The compatibility settings of a subject or of the registry ({@code /config}): the level, and
 * whether schemas are normalized on registration and lookup ({@code normalize}, absent when not
 * set). Immutable, so thread-safe.
 */
public record SubjectConfig(CompatibilityLevel compatibility, Optional<Boolean> normalize) {
    public SubjectConfig {
        Objects.requireNonNull(compatibility, "compatibility");
        Objects.requireNonNull(normalize, "normalize");
    }

    /** The registry's settings when nothing was configured. */
    public static final SubjectConfig DEFAULT =
            new SubjectConfig(CompatibilityLevel.DEFAULT, Optional.empty());
}
