/**
 * The consumer-group API area (classic protocol): JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
 * OffsetCommit and OffsetFetch. The handlers translate between Kafka's request and response
 * messages and the calls of the {@link io.tierlog.server.group.coordinator.GroupCoordinator}; the
 * coordinator never sees a message type. DescribeGroups, ListGroups and the KIP-848 protocol go
 * here when served.
 *
 * <p>Rules: handlers are package-private; {@link io.tierlog.server.group.GroupApis} is the one
 * entry.
 */
package io.tierlog.server.group;
