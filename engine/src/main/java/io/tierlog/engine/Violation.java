package io.tierlog.engine;

import org.apache.kafka.common.TopicPartition;

/**
 * A broken invariant found by {@link Verifier}. Immutable, so thread-safe.
 *
 * @param tp the partition
 * @param kind which invariant
 * @param message what was found, with offsets and object keys
 */
public record Violation(TopicPartition tp, Kind kind, String message) {

    /** The invariants of DESIGN.md that {@code tierlog verify} checks. */
    public enum Kind {
        /** Cold objects overlap, leave a gap, or disagree with the partition's cold offsets. */
        COLD_NOT_CONTIGUOUS,
        /** Offsets between the cold high watermark and the hot log start are in neither tier. */
        GAP_BETWEEN_TIERS,
        /** A catalogued object is missing from the store or has another size. */
        OBJECT_MISSING,
        /** A catalogued object cannot be read or holds other offsets than the catalog says. */
        OBJECT_UNREADABLE,
        /** Hot and cold hold different records for the same offsets. */
        TIERS_DISAGREE,
        /** A hot segment holds an invalid batch (length, magic, CRC or offsets). */
        HOT_CORRUPT
    }

    @Override
    public String toString() {
        return tp + " " + kind + ": " + message;
    }
}
