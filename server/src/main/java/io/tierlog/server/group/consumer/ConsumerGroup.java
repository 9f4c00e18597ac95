package io.tierlog.server.group.consumer;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A consumer group's state: epochs, members, the target assignment and who owns each partition. Not
 * thread-safe: guarded by its own monitor.
 */
final class ConsumerGroup {
    final String id;
    int groupEpoch;
    int targetEpoch;
    String assignorName;
    final LinkedHashMap<String, ConsumerGroupMember> members = new LinkedHashMap<>();
    Map<String, Assignment> target = new HashMap<>();

    /** Partition counts of the subscribed topics the target was computed from. */
    Map<String, Integer> subscribedMetadata = Map.of();

    /** topic -> partition -> member that owns it (assigned or pending revocation). */
    private final Map<String, Map<Integer, String>> owners = new HashMap<>();

    ConsumerGroup(String id) {
        this.id = id;
    }

    boolean hasRegex() {
        for (ConsumerGroupMember m : members.values()) {
            if (m.topicRegex != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * Until when partitions nobody owns are held back after a restart whose persisted state proved
     * stale or lost (0: not held back).
     */
    long recoveringUntilMs;

    /** The state last handed to the store, and its sequence number. */
    ConsumerGroupStore.GroupRecord persisted;

    long persistSeq;

    /** The member holding that instance id, or null. */
    ConsumerGroupMember staticMember(String instanceId) {
        for (ConsumerGroupMember m : members.values()) {
            if (instanceId.equals(m.instanceId)) {
                return m;
            }
        }
        return null;
    }

    boolean ownedBy(String memberId, String topic, int partition) {
        return memberId.equals(owners.getOrDefault(topic, Map.of()).get(partition));
    }

    boolean ownedByOther(String memberId, String topic, int partition) {
        String owner = owners.getOrDefault(topic, Map.of()).get(partition);
        return owner != null && !owner.equals(memberId);
    }

    /** Forgets that {@code m} owns anything. */
    void release(ConsumerGroupMember m) {
        m.owned()
                .partitions()
                .forEach(
                        (t, ps) -> {
                            Map<Integer, String> byPartition = owners.get(t);
                            if (byPartition != null) {
                                ps.forEach(p -> byPartition.remove(p, m.id));
                                if (byPartition.isEmpty()) {
                                    owners.remove(t);
                                }
                            }
                        });
    }

    /** Records that {@code m} owns its assigned and pending-revocation partitions. */
    void acquire(ConsumerGroupMember m) {
        m.owned()
                .partitions()
                .forEach(
                        (t, ps) -> {
                            Map<Integer, String> byPartition =
                                    owners.computeIfAbsent(t, k -> new HashMap<>());
                            for (int p : ps) {
                                String was = byPartition.putIfAbsent(p, m.id);
                                if (was != null && !was.equals(m.id)) {
                                    throw new IllegalStateException(
                                            "Partition "
                                                    + t
                                                    + "-"
                                                    + p
                                                    + " of group "
                                                    + id
                                                    + " given to "
                                                    + m.id
                                                    + " while "
                                                    + was
                                                    + " owns it");
                                }
                            }
                        });
    }

    /** Kafka's name of the state: Empty, Assigning, Reconciling or Stable. */
    String stateName() {
        if (members.isEmpty()) {
            return "Empty";
        }
        if (targetEpoch != groupEpoch) {
            return "Assigning";
        }
        for (ConsumerGroupMember m : members.values()) {
            if (m.epoch != targetEpoch || m.state != MemberState.STABLE) {
                return "Reconciling";
            }
        }
        return "Stable";
    }
}
