/**
 * The group coordinator as its own unit: membership, rebalances, session expiry and committed
 * offsets ({@link io.tierlog.server.group.coordinator.OffsetStore}), with an API of plain values
 * (ids, generations, byte arrays, Kafka's {@code Errors} codes and {@code TopicPartition}).
 *
 * <p>Rules: no Kafka wire types ({@code org.apache.kafka.common.message}, {@code
 * org.apache.kafka.common.requests}) and no server type; a test checks the public signatures. A
 * transaction coordinator follows the same shape in {@code txn.coordinator}.
 */
package io.tierlog.server.group.coordinator;
