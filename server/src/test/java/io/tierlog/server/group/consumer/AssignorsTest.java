package io.tierlog.server.group.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Property;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The uniform and range assignors: coverage, exclusivity, balance, stickiness and ranges. */
class AssignorsTest {
    private static final List<ConsumerAssignor> BOTH =
            List.of(new UniformAssignor(), new RangeAssignor());

    private static Map<String, ConsumerAssignor.MemberSpec> members(
            Map<String, Set<String>> subs, Map<String, Assignment> current) {
        Map<String, ConsumerAssignor.MemberSpec> m = new TreeMap<>();
        subs.forEach(
                (id, s) ->
                        m.put(
                                id,
                                new ConsumerAssignor.MemberSpec(
                                        s, current.getOrDefault(id, Assignment.EMPTY))));
        return m;
    }

    /** Every partition of a topic someone subscribes to goes to exactly one subscriber. */
    private static void assertCoversExactlyOnce(
            Map<String, Set<String>> subs,
            Map<String, Integer> topics,
            Map<String, Assignment> out) {
        assertThat(out.keySet()).isEqualTo(subs.keySet());
        Map<String, String> owner = new HashMap<>();
        out.forEach(
                (member, a) ->
                        a.partitions()
                                .forEach(
                                        (t, ps) -> {
                                            assertThat(subs.get(member))
                                                    .as(
                                                            "%s only gets topics it subscribes to",
                                                            member)
                                                    .contains(t);
                                            for (int p : ps) {
                                                assertThat(p).isBetween(0, topics.get(t) - 1);
                                                assertThat(owner.put(t + "-" + p, member))
                                                        .as("%s-%d assigned twice", t, p)
                                                        .isNull();
                                            }
                                        }));
        Set<String> subscribed = new HashSet<>();
        subs.values().forEach(subscribed::addAll);
        topics.forEach(
                (t, n) -> {
                    for (int p = 0; p < n; p++) {
                        assertThat(owner.containsKey(t + "-" + p))
                                .as("%s-%d assigned", t, p)
                                .isEqualTo(subscribed.contains(t));
                    }
                });
    }

    private static Map<String, Integer> randomTopics(Random r) {
        Map<String, Integer> topics = new TreeMap<>();
        int n = Property.between(r, 1, 5);
        for (int i = 0; i < n; i++) {
            topics.put("t" + i, Property.between(r, 1, 13));
        }
        return topics;
    }

    @Test
    void bothAssignorsGiveEveryPartitionToExactlyOneSubscribedMemberForAnySubscriptions() {
        Property.forAll(
                300,
                r -> {
                    Map<String, Integer> topics = randomTopics(r);
                    List<String> names = List.copyOf(topics.keySet());
                    Map<String, Set<String>> subs = new TreeMap<>();
                    int members = Property.between(r, 1, 8);
                    for (int i = 0; i < members; i++) {
                        Set<String> s = new HashSet<>();
                        for (String t : names) {
                            if (r.nextInt(3) > 0) {
                                s.add(t);
                            }
                        }
                        if (r.nextInt(5) == 0) {
                            s.add("missing-topic");
                        }
                        subs.put("m" + r.nextInt(1000) + "-" + i, s);
                    }
                    Map<String, Assignment> current = new HashMap<>();
                    for (String id : subs.keySet()) {
                        if (r.nextBoolean()) {
                            current.put(id, randomAssignment(r, topics));
                        }
                    }
                    for (ConsumerAssignor a : BOTH) {
                        assertCoversExactlyOnce(
                                subs, topics, a.assign(members(subs, current), topics));
                    }
                });
    }

    private static Assignment randomAssignment(Random r, Map<String, Integer> topics) {
        Map<String, List<Integer>> m = new TreeMap<>();
        topics.forEach(
                (t, n) -> {
                    if (r.nextBoolean()) {
                        // may name partitions that no longer exist
                        m.put(t, List.of(r.nextInt(n + 2), r.nextInt(n + 2)));
                    }
                });
        return Assignment.of(m);
    }

    @Test
    void uniformIsBalancedWithinOneWhenAllSubscribeToTheSameTopicsWhateverTheCurrentAssignment() {
        Property.forAll(
                300,
                r -> {
                    Map<String, Integer> topics = randomTopics(r);
                    Map<String, Set<String>> subs = new TreeMap<>();
                    Map<String, Assignment> current = new HashMap<>();
                    int members = Property.between(r, 1, 9);
                    for (int i = 0; i < members; i++) {
                        subs.put("m" + i, topics.keySet());
                        current.put("m" + i, randomAssignment(r, topics));
                    }
                    Map<String, Assignment> out =
                            new UniformAssignor().assign(members(subs, current), topics);
                    assertCoversExactlyOnce(subs, topics, out);
                    int min = out.values().stream().mapToInt(Assignment::size).min().orElseThrow();
                    int max = out.values().stream().mapToInt(Assignment::size).max().orElseThrow();
                    assertThat(max - min).as("sizes %s", out).isLessThanOrEqualTo(1);
                });
    }

    @Test
    void uniformMovesOnlyWhatBalanceNeedsWhenAMemberJoins() {
        Map<String, Integer> topics = Map.of("t", 6);
        Map<String, Set<String>> two = new TreeMap<>(Map.of("a", Set.of("t"), "b", Set.of("t")));
        Map<String, Assignment> first =
                new UniformAssignor().assign(members(two, Map.of()), topics);
        Map<String, Set<String>> three = new TreeMap<>(two);
        three.put("c", Set.of("t"));
        Map<String, Assignment> second =
                new UniformAssignor().assign(members(three, first), topics);
        assertCoversExactlyOnce(three, topics, second);
        // a and b keep two of their three each; c receives one from each.
        assertThat(first.get("a").partitions("t")).containsAll(second.get("a").partitions("t"));
        assertThat(first.get("b").partitions("t")).containsAll(second.get("b").partitions("t"));
        assertThat(second.get("c").size()).isEqualTo(2);
    }

    @Test
    void rangeGivesContiguousRangesInMemberOrderWithTheRemainderToTheFirstMembers() {
        Map<String, Set<String>> subs =
                new TreeMap<>(
                        Map.of(
                                "b", Set.of("x", "y"),
                                "a", Set.of("x", "y"),
                                "c", Set.of("x")));
        Map<String, Assignment> out =
                new RangeAssignor().assign(members(subs, Map.of()), Map.of("x", 7, "y", 3));
        assertThat(out.get("a").partitions("x")).containsExactly(0, 1, 2);
        assertThat(out.get("b").partitions("x")).containsExactly(3, 4);
        assertThat(out.get("c").partitions("x")).containsExactly(5, 6);
        // y: only a and b subscribe; co-partitioned with x for them.
        assertThat(out.get("a").partitions("y")).containsExactly(0, 1);
        assertThat(out.get("b").partitions("y")).containsExactly(2);
        assertThat(out.get("c").partitions("y")).isEmpty();
    }

    @Test
    void aMemberSubscribedToNothingThatExistsIsAssignedNothing() {
        Map<String, Set<String>> subs =
                new TreeMap<>(Map.of("a", Set.of("t"), "b", Set.of("gone")));
        for (ConsumerAssignor a : BOTH) {
            Map<String, Assignment> out = a.assign(members(subs, Map.of()), Map.of("t", 4));
            assertThat(out.get("b").isEmpty()).isTrue();
            assertThat(out.get("a").size()).isEqualTo(4);
        }
    }
}
