/**
 * The admin API area: CreateTopics, DeleteTopics and DescribeConfigs (how options are reported to
 * Kafka tools is {@code ConfigDescriber}). Later admin APIs (IncrementalAlterConfigs,
 * CreatePartitions, DescribeCluster, ...) go here; ACL APIs get their own {@code acl} area.
 *
 * <p>Rules: handlers are package-private; {@link io.tierlog.server.admin.AdminApis} is the one
 * entry and the only area that changes the topic registry (besides Metadata's auto-creation).
 */
package io.tierlog.server.admin;
