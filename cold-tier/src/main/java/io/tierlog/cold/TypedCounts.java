package io.tierlog.cold;

import java.util.Map;

/**
 * What the typed columns of one object hold (see {@link ParquetLogWriter#typedCounts()}): values
 * and keys decoded, values stored once, and the payloads not decoded by reason ({@code no-header},
 * {@code unknown-id}, {@code not-in-subject}, {@code decode}). Immutable.
 */
public record TypedCounts(
        long valuesTyped,
        long valuesRebuilt,
        long keysTyped,
        Map<String, Long> valueFailures,
        Map<String, Long> keyFailures) {
    public static final TypedCounts NONE = new TypedCounts(0, 0, 0, Map.of(), Map.of());

    public TypedCounts {
        valueFailures = Map.copyOf(valueFailures);
        keyFailures = Map.copyOf(keyFailures);
    }
}
