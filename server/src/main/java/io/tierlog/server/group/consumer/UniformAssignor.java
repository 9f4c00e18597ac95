package io.tierlog.server.group.consumer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The {@code uniform} server-side assignor (Kafka's default): spreads the partitions of all
 * subscribed topics evenly over the members, keeping each member's current partitions where it can
 * (sticky). When every member subscribes to the same topics the counts differ by at most one; with
 * different subscriptions it moves a partition from a member to a less loaded one that is
 * subscribed to its topic as long as that narrows the gap by more than one. Thread-safe
 * (stateless); deterministic (ties go to the smaller member id).
 */
public final class UniformAssignor implements ConsumerAssignor {
    public static final String NAME = "uniform";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, Assignment> assign(
            Map<String, MemberSpec> members, Map<String, Integer> partitionsPerTopic) {
        TreeMap<String, Set<String>> subs = new TreeMap<>();
        members.forEach((id, m) -> subs.put(id, m.topics()));
        Map<String, TreeSet<Tp>> owned = new TreeMap<>();
        Map<Tp, String> owner = new HashMap<>();
        for (String id : subs.keySet()) {
            owned.put(id, new TreeSet<>());
        }
        // Sticky pass: a member keeps what it is targeted for while still subscribed and the
        // partition still exists, unless another member already kept it.
        for (Map.Entry<String, Set<String>> e : subs.entrySet()) {
            Assignment current = members.get(e.getKey()).current();
            for (Map.Entry<String, java.util.SortedSet<Integer>> t :
                    current.partitions().entrySet()) {
                int count = partitionsPerTopic.getOrDefault(t.getKey(), 0);
                if (!e.getValue().contains(t.getKey())) {
                    continue;
                }
                for (int p : t.getValue()) {
                    Tp tp = new Tp(t.getKey(), p);
                    if (p < count && !owner.containsKey(tp)) {
                        owner.put(tp, e.getKey());
                        owned.get(e.getKey()).add(tp);
                    }
                }
            }
        }
        // Every unowned partition goes to the least loaded member subscribed to its topic.
        for (Map.Entry<String, Integer> t : new TreeMap<>(partitionsPerTopic).entrySet()) {
            List<String> candidates = subscribers(subs, t.getKey());
            if (candidates.isEmpty()) {
                continue;
            }
            for (int p = 0; p < t.getValue(); p++) {
                Tp tp = new Tp(t.getKey(), p);
                if (owner.containsKey(tp)) {
                    continue;
                }
                String to = leastLoaded(candidates, owned);
                owner.put(tp, to);
                owned.get(to).add(tp);
            }
        }
        balance(subs, owned);
        Map<String, Assignment> out = new TreeMap<>();
        for (Map.Entry<String, TreeSet<Tp>> e : owned.entrySet()) {
            out.put(e.getKey(), toAssignment(e.getValue()));
        }
        return out;
    }

    /**
     * Moves partitions from the most loaded members to members with at least two fewer that are
     * subscribed to their topic, until no such move exists. Each move lowers the sum of squared
     * counts, so this ends; with equal subscriptions it ends with counts within one.
     */
    private static void balance(TreeMap<String, Set<String>> subs, Map<String, TreeSet<Tp>> owned) {
        boolean moved = true;
        while (moved) {
            moved = false;
            List<String> byLoad = new ArrayList<>(subs.keySet());
            byLoad.sort(
                    (a, b) -> {
                        int c = Integer.compare(owned.get(b).size(), owned.get(a).size());
                        return c != 0 ? c : a.compareTo(b);
                    });
            search:
            for (String from : byLoad) {
                // Give away the partitions taken last first, so older ones stay put.
                for (Tp tp : owned.get(from).descendingSet()) {
                    String to = null;
                    for (String cand : subs.keySet()) {
                        if (owned.get(cand).size() < owned.get(from).size() - 1
                                && subs.get(cand).contains(tp.topic())
                                && (to == null || owned.get(cand).size() < owned.get(to).size())) {
                            to = cand;
                        }
                    }
                    if (to != null) {
                        owned.get(from).remove(tp);
                        owned.get(to).add(tp);
                        moved = true;
                        break search;
                    }
                }
            }
        }
    }

    private static List<String> subscribers(TreeMap<String, Set<String>> subs, String topic) {
        List<String> out = new ArrayList<>();
        subs.forEach(
                (id, topics) -> {
                    if (topics.contains(topic)) {
                        out.add(id);
                    }
                });
        return out;
    }

    private static String leastLoaded(List<String> candidates, Map<String, TreeSet<Tp>> owned) {
        String best = candidates.get(0);
        for (String c : candidates) {
            if (owned.get(c).size() < owned.get(best).size()) {
                best = c;
            }
        }
        return best;
    }

    static Assignment toAssignment(Iterable<Tp> tps) {
        Map<String, List<Integer>> m = new TreeMap<>();
        for (Tp tp : tps) {
            m.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(tp.partition());
        }
        return Assignment.of(m);
    }

    /** A partition; ordered by topic, then index. */
    record Tp(String topic, int partition) implements Comparable<Tp> {
        @Override
        public int compareTo(Tp o) {
            int c = topic.compareTo(o.topic);
            return c != 0 ? c : Integer.compare(partition, o.partition);
        }
    }
}
