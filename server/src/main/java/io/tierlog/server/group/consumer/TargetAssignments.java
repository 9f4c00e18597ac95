package io.tierlog.server.group.consumer;

import com.google.re2j.Pattern;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A group's epoch and target assignment: bumps the group epoch on a change of membership,
 * subscriptions or subscribed topic metadata, and recomputes the target with the group's assignor
 * (the one most members ask for). Called under the group's monitor; holds no state of its own
 * beyond its settings, so thread-safe.
 */
final class TargetAssignments {
    private final List<ConsumerAssignor> assignors;
    private final ConsumerGroupCoordinator.Topics topics;

    TargetAssignments(List<ConsumerAssignor> assignors, ConsumerGroupCoordinator.Topics topics) {
        this.assignors = assignors;
        this.topics = topics;
    }

    /** The topics {@code m} subscribes to that exist: names and regex matches. */
    Set<String> subscription(ConsumerGroupMember m, Collection<String> allTopics) {
        Set<String> out = new TreeSet<>(m.topicNames);
        if (m.topicRegex != null) {
            Pattern p = Pattern.compile(m.topicRegex);
            for (String t : allTopics) {
                if (p.matches(t)) {
                    out.add(t);
                }
            }
        }
        return out;
    }

    /**
     * Bumps the group epoch once if {@code bump} (membership or a subscription changed) or the
     * subscribed topics' metadata changed, and recomputes the target assignment if it is behind the
     * group epoch.
     */
    void maybeRefreshTarget(ConsumerGroup g, boolean bump) {
        Collection<String> all = g.hasRegex() ? topics.names() : List.of();
        Map<String, Set<String>> subs = new TreeMap<>();
        Map<String, Integer> metadata = new TreeMap<>();
        for (ConsumerGroupMember m : g.members.values()) {
            Set<String> s = subscription(m, all);
            subs.put(m.id, s);
            for (String t : s) {
                OptionalInt n = topics.partitions(t);
                if (n.isPresent()) {
                    metadata.put(t, n.getAsInt());
                }
            }
        }
        if (!metadata.equals(g.subscribedMetadata)) {
            g.subscribedMetadata = metadata;
            bump = true;
        }
        if (bump) {
            // One epoch per change, whatever changed (membership, subscriptions, metadata).
            g.groupEpoch++;
        }
        if (g.targetEpoch == g.groupEpoch) {
            return;
        }
        ConsumerAssignor a = assignor(groupAssignor(g));
        Map<String, ConsumerAssignor.MemberSpec> specs = new TreeMap<>();
        subs.forEach(
                (id, s) ->
                        specs.put(
                                id,
                                new ConsumerAssignor.MemberSpec(
                                        s, g.target.getOrDefault(id, Assignment.EMPTY))));
        g.target = new HashMap<>(a.assign(specs, metadata));
        g.targetEpoch = g.groupEpoch;
        g.assignorName = a.name();
    }

    /** The assignor most members ask for (ties: the one listed first), else the default. */
    String groupAssignor(ConsumerGroup g) {
        Map<String, Integer> votes = new HashMap<>();
        for (ConsumerGroupMember m : g.members.values()) {
            if (m.serverAssignor != null) {
                votes.merge(m.serverAssignor, 1, Integer::sum);
            }
        }
        String best = assignors.get(0).name();
        int bestVotes = 0;
        for (ConsumerAssignor a : assignors) {
            int v = votes.getOrDefault(a.name(), 0);
            if (v > bestVotes) {
                best = a.name();
                bestVotes = v;
            }
        }
        return best;
    }

    ConsumerAssignor assignor(String name) {
        for (ConsumerAssignor a : assignors) {
            if (a.name().equals(name)) {
                return a;
            }
        }
        return null;
    }

    String assignorNames() {
        List<String> names = new ArrayList<>();
        assignors.forEach(a -> names.add(a.name()));
        return String.join(", ", names);
    }
}
