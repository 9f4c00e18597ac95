package io.tierlog.server.group.consumer;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * An immutable set of partitions, by topic name: what a member is assigned, must revoke, or is
 * targeted to own. Topics without partitions are never stored, so two equal sets of partitions are
 * equal {@code Assignment}s. Thread-safe (immutable).
 */
public final class Assignment {
    public static final Assignment EMPTY = new Assignment(new TreeMap<>());

    private final Map<String, SortedSet<Integer>> partitions;

    private Assignment(TreeMap<String, SortedSet<Integer>> partitions) {
        this.partitions = Collections.unmodifiableMap(partitions);
    }

    /** A copy of {@code partitions} (topic to partition indexes). */
    public static Assignment of(Map<String, ? extends java.util.Collection<Integer>> partitions) {
        TreeMap<String, SortedSet<Integer>> copy = new TreeMap<>();
        partitions.forEach(
                (t, ps) -> {
                    if (!ps.isEmpty()) {
                        copy.put(t, Collections.unmodifiableSortedSet(new TreeSet<>(ps)));
                    }
                });
        return new Assignment(copy);
    }

    /** Topic to partitions (sorted, unmodifiable). */
    public Map<String, SortedSet<Integer>> partitions() {
        return partitions;
    }

    public Set<Integer> partitions(String topic) {
        return partitions.getOrDefault(topic, Collections.emptySortedSet());
    }

    public boolean contains(String topic, int partition) {
        return partitions(topic).contains(partition);
    }

    public boolean isEmpty() {
        return partitions.isEmpty();
    }

    public int size() {
        int n = 0;
        for (SortedSet<Integer> ps : partitions.values()) {
            n += ps.size();
        }
        return n;
    }

    public Assignment union(Assignment other) {
        return combine(other, true);
    }

    public Assignment minus(Assignment other) {
        TreeMap<String, Set<Integer>> out = new TreeMap<>();
        partitions.forEach(
                (t, ps) -> {
                    Set<Integer> left = new TreeSet<>(ps);
                    left.removeAll(other.partitions(t));
                    out.put(t, left);
                });
        return of(out);
    }

    public Assignment intersect(Assignment other) {
        return combine(other, false);
    }

    /** True if a partition is in both. */
    public boolean overlaps(Assignment other) {
        for (Map.Entry<String, SortedSet<Integer>> e : partitions.entrySet()) {
            for (int p : e.getValue()) {
                if (other.contains(e.getKey(), p)) {
                    return true;
                }
            }
        }
        return false;
    }

    private Assignment combine(Assignment other, boolean union) {
        TreeMap<String, Set<Integer>> out = new TreeMap<>();
        Set<String> topics = new TreeSet<>(partitions.keySet());
        topics.addAll(other.partitions.keySet());
        for (String t : topics) {
            Set<Integer> s = new TreeSet<>(partitions(t));
            if (union) {
                s.addAll(other.partitions(t));
            } else {
                s.retainAll(other.partitions(t));
            }
            out.put(t, s);
        }
        return of(out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Assignment a && a.partitions.equals(partitions);
    }

    @Override
    public int hashCode() {
        return partitions.hashCode();
    }

    @Override
    public String toString() {
        return partitions.toString();
    }
}
