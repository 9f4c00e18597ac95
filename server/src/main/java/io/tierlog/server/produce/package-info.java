/**
 * The produce API area: Produce (appends the request's record batches, never copied) and
 * InitProducerId (producer ids and epochs for idempotent producers).
 *
 * <p>Rules: handlers are package-private; {@link io.tierlog.server.produce.ProduceApis} is the one
 * entry and receives only what produce uses. Transactional producers (InitProducerId with a
 * transactional id, AddPartitionsToTxn, EndTxn) belong to a future {@code txn} area.
 */
package io.tierlog.server.produce;
