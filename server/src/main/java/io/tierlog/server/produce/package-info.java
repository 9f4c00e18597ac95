/**
 * The produce API area: Produce (appends the request's record batches, never copied; with a
 * transaction coordinator, transactional batches are verified through {@link
 * io.tierlog.server.produce.TxnPartitionCheck} first) and InitProducerId for idempotent producers
 * when no coordinator is wired.
 *
 * <p>Rules: handlers are package-private; {@link io.tierlog.server.produce.ProduceApis} is the one
 * entry and receives only what produce uses. Transactional producers (InitProducerId with a
 * transactional id, AddPartitionsToTxn, EndTxn, ...) belong to the {@code txn} area.
 */
package io.tierlog.server.produce;
