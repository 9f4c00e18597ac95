/**
 * The transaction API area: InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit,
 * EndTxn, WriteTxnMarkers, ListTransactions and DescribeTransactions over the transaction
 * coordinator ({@code txn.coordinator}, which knows no wire types), and the adapters the
 * coordinator writes markers through ({@link io.tierlog.server.txn.EngineMarkerWriter}).
 *
 * <p>Rules: handlers are package-private; {@link io.tierlog.server.txn.TxnApis} is the one entry.
 * The area sees no other area: the group side of TxnOffsetCommit comes in as a {@link
 * io.tierlog.server.txn.TxnOffsetSink}, Produce's verification is composed in {@code ApiHandlers}.
 */
package io.tierlog.server.txn;
