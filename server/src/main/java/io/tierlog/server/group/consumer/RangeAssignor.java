package io.tierlog.server.group.consumer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code range} server-side assignor: topic by topic, the members subscribed to it (in member
 * id order) each receive a contiguous range of its partitions; with {@code n} partitions and {@code
 * m} members the first {@code n % m} members receive {@code n / m + 1}, the others {@code n / m}.
 * Members with the same subscriptions therefore receive the same partition indexes of every topic
 * (co-partitioning), as with Kafka's range assignors. Unlike Kafka 4.4's server-side range assignor
 * it is not sticky: the ranges follow the member order only. Thread-safe (stateless).
 */
public final class RangeAssignor implements ConsumerAssignor {
    public static final String NAME = "range";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, Assignment> assign(
            Map<String, MemberSpec> members, Map<String, Integer> partitionsPerTopic) {
        Map<String, Map<String, List<Integer>>> out = new TreeMap<>();
        for (String id : members.keySet()) {
            out.put(id, new TreeMap<>());
        }
        for (Map.Entry<String, Integer> t : new TreeMap<>(partitionsPerTopic).entrySet()) {
            List<String> subscribed = new ArrayList<>();
            for (String id : out.keySet()) {
                if (members.get(id).topics().contains(t.getKey())) {
                    subscribed.add(id);
                }
            }
            if (subscribed.isEmpty()) {
                continue;
            }
            int n = t.getValue();
            int each = n / subscribed.size();
            int extra = n % subscribed.size();
            int next = 0;
            for (int i = 0; i < subscribed.size(); i++) {
                int size = each + (i < extra ? 1 : 0);
                List<Integer> ps = new ArrayList<>();
                for (int p = next; p < next + size; p++) {
                    ps.add(p);
                }
                next += size;
                out.get(subscribed.get(i)).put(t.getKey(), ps);
            }
        }
        Map<String, Assignment> result = new TreeMap<>();
        out.forEach((id, m) -> result.put(id, Assignment.of(m)));
        return result;
    }
}
