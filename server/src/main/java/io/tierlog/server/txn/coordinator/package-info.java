/**
 * The transaction coordinator as its own unit, with Kafka 4.4's semantics: InitProducerId with a
 * transactional id (epoch bumps, zombie fencing, KIP-360, epoch exhaustion), AddPartitionsToTxn and
 * the KIP-890 verification, AddOffsetsToTxn, EndTxn under transaction versions 1 and 2, timeouts,
 * transactional-id expiry, ListTransactions and DescribeTransactions; its state is journaled in
 * {@code <meta>/transactions} ({@link io.tierlog.server.txn.coordinator.TransactionCoordinator}).
 * Markers and group completions leave it through two interfaces implemented elsewhere ({@link
 * io.tierlog.server.txn.coordinator.TxnMarkerWriter}, {@link
 * io.tierlog.server.txn.coordinator.TxnGroupCompleter}).
 *
 * <p>Rules, as {@code group.coordinator}: no Kafka wire types and no server type; a test checks the
 * public signatures and the sources.
 */
package io.tierlog.server.txn.coordinator;
