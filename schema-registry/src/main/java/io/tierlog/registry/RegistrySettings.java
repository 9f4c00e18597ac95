package io.tierlog.registry;

import io.tierlog.catalog.SchemaStore;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The registry's settings in the catalog ({@code /config} and {@code /mode}): per subject, and
 * registry-wide under {@link SchemaStore#GLOBAL}. Keys {@value #COMPATIBILITY}, {@value #NORMALIZE}
 * and {@value #MODE}. Not cached: they are read once per registration or request, and another
 * process may change them at any time. Thread-safe.
 */
final class RegistrySettings {
    static final String COMPATIBILITY = "compatibility";
    static final String NORMALIZE = "normalize";
    static final String MODE = "mode";

    private final SchemaStore store;

    RegistrySettings(SchemaStore store) {
        this.store = store;
    }

    static String scope(String subject) {
        return subject == null ? SchemaStore.GLOBAL : subject;
    }

    /** The settings configured for {@code subject} (null: the registry's), if any. */
    Optional<SubjectConfig> config(String subject) {
        Map<String, String> c = store.config(scope(subject));
        if (!c.containsKey(COMPATIBILITY) && !c.containsKey(NORMALIZE)) {
            return Optional.empty();
        }
        CompatibilityLevel level =
                c.containsKey(COMPATIBILITY)
                        ? CompatibilityLevel.valueOf(c.get(COMPATIBILITY))
                        : subject == null
                                ? CompatibilityLevel.DEFAULT
                                : effective(null).compatibility();
        Optional<Boolean> normalize =
                Optional.ofNullable(c.get(NORMALIZE)).map(Boolean::parseBoolean);
        return Optional.of(new SubjectConfig(level, normalize));
    }

    /** What applies to {@code subject}: its own settings, else the registry's, else defaults. */
    SubjectConfig effective(String subject) {
        Map<String, String> global = store.config(SchemaStore.GLOBAL);
        Map<String, String> own = subject == null ? Map.of() : store.config(subject);
        String level = own.getOrDefault(COMPATIBILITY, global.get(COMPATIBILITY));
        String normalize = own.getOrDefault(NORMALIZE, global.get(NORMALIZE));
        return new SubjectConfig(
                level == null ? CompatibilityLevel.DEFAULT : CompatibilityLevel.valueOf(level),
                Optional.ofNullable(normalize).map(Boolean::parseBoolean));
    }

    /**
     * Sets the level (and {@code normalize} when not null) of {@code subject} (null: the
     * registry's).
     *
     * @throws SchemaRegistryException 42203 for an unknown level
     */
    SubjectConfig put(String subject, String level, Boolean normalize) {
        CompatibilityLevel parsed = level(level);
        Map<String, String> values = new HashMap<>();
        values.put(COMPATIBILITY, parsed.name());
        if (normalize != null) {
            values.put(NORMALIZE, normalize.toString());
        }
        store.putConfig(scope(subject), values);
        return new SubjectConfig(parsed, Optional.ofNullable(normalize));
    }

    /**
     * Removes the settings of {@code subject} (null: the registry's, which then are the defaults).
     *
     * @return what was configured before
     * @throws SchemaRegistryException 40408 when a subject had none
     */
    SubjectConfig delete(String subject) {
        Optional<SubjectConfig> before = config(subject);
        if (before.isEmpty() && subject != null) {
            throw new SchemaRegistryException(
                    ErrorCodes.SUBJECT_COMPATIBILITY_NOT_CONFIGURED,
                    "Subject '"
                            + subject
                            + "' does not have subject-level compatibility configured");
        }
        store.deleteConfig(scope(subject), Set.of(COMPATIBILITY, NORMALIZE));
        return before.orElse(SubjectConfig.DEFAULT);
    }

    static CompatibilityLevel level(String level) {
        if (level != null) {
            try {
                return CompatibilityLevel.valueOf(level.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                // reported below
            }
        }
        throw new SchemaRegistryException(
                ErrorCodes.INVALID_COMPATIBILITY_LEVEL,
                "Invalid compatibility level "
                        + level
                        + ". Valid values are none, backward, forward, full, backward_transitive,"
                        + " forward_transitive, and full_transitive");
    }

    /** The mode set for {@code subject} (null: the registry's), if any. */
    Optional<RegistryMode> mode(String subject) {
        return Optional.ofNullable(store.config(scope(subject)).get(MODE)).map(RegistryMode::of);
    }

    /** The mode that applies to {@code subject}: its own, else the registry's, else READWRITE. */
    RegistryMode effectiveMode(String subject) {
        Optional<RegistryMode> own = subject == null ? Optional.empty() : mode(subject);
        return own.or(() -> mode(null)).orElse(RegistryMode.DEFAULT);
    }

    RegistryMode putMode(String subject, String mode) {
        RegistryMode m = RegistryMode.of(mode);
        store.putConfig(scope(subject), Map.of(MODE, m.name()));
        return m;
    }

    /**
     * Removes the mode of {@code subject} (null: the registry's).
     *
     * @return the mode before
     * @throws SchemaRegistryException 40409 when a subject had none
     */
    RegistryMode deleteMode(String subject) {
        Optional<RegistryMode> before = mode(subject);
        if (before.isEmpty() && subject != null) {
            throw new SchemaRegistryException(
                    ErrorCodes.SUBJECT_MODE_NOT_CONFIGURED,
                    "Subject '" + subject + "' does not have subject-level mode configured");
        }
        store.deleteConfig(scope(subject), Set.of(MODE));
        return before.orElse(RegistryMode.DEFAULT);
    }

    /**
     * Refuses a write to {@code subject} when its mode is read-only.
     *
     * @throws SchemaRegistryException 42205
     */
    void checkWritable(String subject) {
        RegistryMode m = effectiveMode(subject);
        if (m.readOnly()) {
            throw new SchemaRegistryException(
                    ErrorCodes.OPERATION_NOT_PERMITTED,
                    "Subject '" + subject + "' is in read-only mode (" + m + ")");
        }
    }

    /** Forgets the settings of a subject that was deleted permanently. */
    void forget(String subject) {
        store.deleteConfig(scope(subject), Set.of(COMPATIBILITY, NORMALIZE, MODE));
    }
}
