package io.tierlog.engine;

/**
 * An aborted transaction a {@code read_committed} reader must skip, as Fetch's {@code
 * aborted_transactions} entry: the producer's batches from {@code firstOffset} up to its abort
 * marker belong to it. Immutable.
 */
public record AbortedTransaction(long producerId, long firstOffset) {}
