/**
 * The coordinator of KIP-848 consumer groups ({@code group.protocol=consumer}): members heartbeat,
 * the server computes the target assignment with a server-side assignor ({@link
 * io.tierlog.server.group.consumer.UniformAssignor}, {@link
 * io.tierlog.server.group.consumer.RangeAssignor}) and reconciles each member towards it so that a
 * partition is never owned by two members at once. No wire types: the handlers in {@code
 * io.tierlog.server.group} translate requests.
 */
package io.tierlog.server.group.consumer;
