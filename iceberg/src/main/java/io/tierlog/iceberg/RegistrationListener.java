package io.tierlog.iceberg;

/**
 * Told of each table commit that made offsets of a partition queryable (the engine's freshness
 * metrics). Called from the registrar thread: quick and thread-safe.
 */
@FunctionalInterface
public interface RegistrationListener {
    /**
     * Offsets below {@code nextOffset} of {@code topic}-{@code partition} are queryable in the
     * table since {@code committedAtMs}.
     */
    void onRegistered(String topic, int partition, long nextOffset, long committedAtMs);
}
