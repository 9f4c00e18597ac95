package io.tierlog.server.group.consumer;

import java.util.Map;
import java.util.Set;

/**
 * A server-side assignor of a consumer group ({@code group.consumer.assignors}, chosen per member
 * by {@code group.remote.assignor}): maps every partition of the subscribed topics to exactly one
 * member subscribed to its topic. Implementations are stateless and thread-safe; they must be
 * deterministic for a given input (the coordinator recomputes the target on every group epoch).
 */
public interface ConsumerAssignor {
    /** The name clients ask for ({@code uniform}, {@code range}). */
    String name();

    /**
     * The target assignment.
     *
     * @param members each member's id with its subscribed topics (names) and its current target
     *     assignment (for stickiness; may be empty)
     * @param partitionsPerTopic the partition count of every subscribed topic that exists; a
     *     subscribed topic missing here is ignored
     * @return every member (also those assigned nothing) to its partitions by topic name
     */
    Map<String, Assignment> assign(
            Map<String, MemberSpec> members, Map<String, Integer> partitionsPerTopic);

    /** What the assignor knows of a member. */
    record MemberSpec(Set<String> topics, Assignment current) {}
}
