package io.tierlog.server.group.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.common.testing.ManualScheduler;
import io.tierlog.common.testing.Property;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The consumer-group coordinator on a manual clock: joins, epochs, reconciliation (revoke before
 * reassign), Kafka's errors, session expiry and the revocation deadline.
 */
class ConsumerGroupCoordinatorTest {
    static final int SESSION_MS = 45_000;
    final MockTime time = new MockTime(1_700_000_000_000L);
    final ManualScheduler timer = new ManualScheduler(time);
    final Map<String, Integer> topics = new TreeMap<>(Map.of("t", 6));
    final Set<String> classicInUse = new HashSet<>();
    ConsumerGroupCoordinator c = coordinator();

    ConsumerGroupCoordinator coordinator() {
        return new ConsumerGroupCoordinator(
                new ConsumerGroupCoordinator.Settings(
                        SESSION_MS, 5_000, List.of(new UniformAssignor(), new RangeAssignor()), 4),
                topicsView(),
                classicInUse::contains,
                timer,
                time);
    }

    ConsumerGroupCoordinator.Topics topicsView() {
        return new ConsumerGroupCoordinator.Topics() {
            @Override
            public OptionalInt partitions(String topic) {
                Integer n = topics.get(topic);
                return n == null ? OptionalInt.empty() : OptionalInt.of(n);
            }

            @Override
            public Collection<String> names() {
                return List.copyOf(topics.keySet());
            }
        };
    }

    @AfterEach
    void close() {
        c.close();
    }

    static ConsumerGroupMessages.HeartbeatRequest join(String member, List<String> topics) {
        return new ConsumerGroupMessages.HeartbeatRequest(
                "g",
                member,
                0,
                null,
                null,
                30_000,
                topics,
                null,
                null,
                Assignment.EMPTY,
                "c",
                "/h");
    }

    static ConsumerGroupMessages.HeartbeatRequest beat(String member, int epoch, Assignment owned) {
        return new ConsumerGroupMessages.HeartbeatRequest(
                "g", member, epoch, null, null, -1, null, null, null, owned, null, null);
    }

    /** A client: owns what its last answer assigned, and reports it on every heartbeat. */
    final class Client {
        final String id;
        int epoch;
        Assignment owned = Assignment.EMPTY;

        Client(String id) {
            this.id = id;
            apply(c.heartbeat(join(id, List.of("t"))));
        }

        Client(String id, String instanceId) {
            this.id = id;
            apply(c.heartbeat(staticJoin(id, instanceId)));
        }

        ConsumerGroupMessages.HeartbeatResult beat() {
            return apply(c.heartbeat(ConsumerGroupCoordinatorTest.beat(id, epoch, owned)));
        }

        private ConsumerGroupMessages.HeartbeatResult apply(
                ConsumerGroupMessages.HeartbeatResult r) {
            assertThat(r.error()).as("%s: %s", id, r.errorMessage()).isEqualTo(Errors.NONE);
            epoch = r.memberEpoch();
            if (r.assignment() != null) {
                owned = r.assignment();
            }
            return r;
        }
    }

    static void assertDisjoint(Collection<Client> clients) {
        Set<String> seen = new HashSet<>();
        for (Client cl : clients) {
            cl.owned
                    .partitions()
                    .forEach(
                            (t, ps) ->
                                    ps.forEach(
                                            p ->
                                                    assertThat(seen.add(t + p))
                                                            .as("%s-%d owned twice", t, p)
                                                            .isTrue()));
        }
    }

    @Test
    void aJoiningMemberGetsEverythingThenASecondOneOnlyAfterTheFirstRevoked() {
        Client a = new Client("a");
        assertThat(a.owned.size()).isEqualTo(6);
        assertThat(a.epoch).isEqualTo(1);
        Client b = new Client("b");
        assertThat(b.owned.isEmpty()).as("a still owns everything").isTrue();
        assertThat(b.epoch).isEqualTo(2);
        ConsumerGroupMessages.HeartbeatResult r = a.beat();
        assertThat(a.owned.size()).as("a is told to keep only 3").isEqualTo(3);
        assertThat(r.memberEpoch()).as("a stays at its epoch until it revoked").isEqualTo(1);
        assertThat(c.describe("g").orElseThrow().state()).isEqualTo("Reconciling");
        a.beat(); // reports it owns only 3
        assertThat(a.epoch).isEqualTo(2);
        b.beat();
        assertThat(b.owned.size()).isEqualTo(3);
        assertDisjoint(List.of(a, b));
        assertThat(c.describe("g").orElseThrow().state()).isEqualTo("Stable");
        assertThat(c.describe("g").orElseThrow().groupEpoch()).isEqualTo(2);
    }

    @Test
    void randomJoinsLeavesAndHeartbeatsNeverLetTwoMembersOwnAPartition() {
        Property.forAll(
                100,
                rnd -> {
                    c.close();
                    c = coordinator();
                    Map<String, Client> clients = new TreeMap<>();
                    int next = 0;
                    for (int step = 0; step < 200; step++) {
                        int op = rnd.nextInt(10);
                        if (op == 0 && clients.size() < 4) {
                            String id = "m" + next++;
                            clients.put(id, new Client(id));
                        } else if (op == 1 && !clients.isEmpty()) {
                            Client gone = pick(rnd, clients);
                            clients.remove(gone.id);
                            assertThat(c.heartbeat(beat(gone.id, -1, null)).error())
                                    .isEqualTo(Errors.NONE);
                        } else if (op == 2) {
                            topics.merge("t", 1, Integer::sum);
                        } else if (!clients.isEmpty()) {
                            pick(rnd, clients).beat();
                        }
                        assertDisjoint(clients.values());
                    }
                    // Left alone, the group settles: everything owned, balanced within one.
                    for (int round = 0; round < 4; round++) {
                        clients.values().forEach(Client::beat);
                    }
                    if (!clients.isEmpty()) {
                        int total = 0;
                        int min = Integer.MAX_VALUE;
                        int max = 0;
                        for (Client cl : clients.values()) {
                            total += cl.owned.size();
                            min = Math.min(min, cl.owned.size());
                            max = Math.max(max, cl.owned.size());
                        }
                        assertThat(total).isEqualTo(topics.get("t"));
                        assertThat(max - min).isLessThanOrEqualTo(1);
                        assertThat(c.describe("g").orElseThrow().state()).isEqualTo("Stable");
                    }
                    topics.put("t", 6);
                });
    }

    private static Client pick(Random rnd, Map<String, Client> clients) {
        List<Client> l = new ArrayList<>(clients.values());
        return l.get(rnd.nextInt(l.size()));
    }

    @Test
    void epochsAheadOrBehindAreFencedButTheEpochBeforeWithNoMoreThanAssignedIsAccepted() {
        Client a = new Client("a");
        assertThat(c.heartbeat(beat("a", a.epoch + 1, a.owned)).error())
                .isEqualTo(Errors.FENCED_MEMBER_EPOCH);
        new Client("b");
        a.beat(); // told to revoke 3 at epoch 1
        a.beat(); // revoked: epoch 2
        assertThat(a.epoch).isEqualTo(2);
        // The answer that moved a to epoch 2 was lost: epoch 1 with a subset of its partitions.
        assertThat(c.heartbeat(beat("a", 1, a.owned)).error()).isEqualTo(Errors.NONE);
        assertThat(c.heartbeat(beat("a", 1, null)).error()).isEqualTo(Errors.FENCED_MEMBER_EPOCH);
        assertThat(
                        c.heartbeat(
                                        beat(
                                                "a",
                                                0 + 1,
                                                Assignment.of(
                                                        Map.of("t", List.of(0, 1, 2, 3, 4, 5)))))
                                .error())
                .isEqualTo(Errors.FENCED_MEMBER_EPOCH);
        assertThat(c.heartbeat(beat("nobody", 3, null)).error())
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void invalidRequestsAreAnsweredWithKafkasErrors() {
        assertThat(
                        c.heartbeat(
                                        new ConsumerGroupMessages.HeartbeatRequest(
                                                "g",
                                                "a",
                                                0,
                                                null,
                                                null,
                                                -1,
                                                List.of("t"),
                                                null,
                                                null,
                                                null,
                                                null,
                                                null))
                                .errorMessage())
                .isEqualTo("RebalanceTimeoutMs must be provided in first request.");
        assertThat(
                        c.heartbeat(
                                        new ConsumerGroupMessages.HeartbeatRequest(
                                                "g", "a", 0, null, null, 1000, null, null, null,
                                                null, null, null))
                                .error())
                .isEqualTo(Errors.INVALID_REQUEST);
        assertThat(
                        c.heartbeat(
                                        new ConsumerGroupMessages.HeartbeatRequest(
                                                "",
                                                "a",
                                                0,
                                                null,
                                                null,
                                                1000,
                                                List.of("t"),
                                                null,
                                                null,
                                                null,
                                                null,
                                                null))
                                .error())
                .isEqualTo(Errors.INVALID_REQUEST);
        assertThat(
                        c.heartbeat(
                                        new ConsumerGroupMessages.HeartbeatRequest(
                                                "g",
                                                "a",
                                                0,
                                                null,
                                                null,
                                                1000,
                                                List.of("t"),
                                                null,
                                                "sticky",
                                                null,
                                                null,
                                                null))
                                .error())
                .isEqualTo(Errors.UNSUPPORTED_ASSIGNOR);
        assertThat(
                        c.heartbeat(
                                        new ConsumerGroupMessages.HeartbeatRequest(
                                                "g", "a", 0, null, null, 1000, null, "t(", null,
                                                null, null, null))
                                .error())
                .isEqualTo(Errors.INVALID_REGULAR_EXPRESSION);
        assertThat(c.heartbeat(beat("x", 5, null)).error())
                .as("a heartbeat of a group that does not exist")
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        classicInUse.add("g");
        assertThat(c.heartbeat(join("a", List.of("t"))).error())
                .isEqualTo(Errors.GROUP_ID_NOT_FOUND);
        classicInUse.clear();
        for (int i = 0; i < 4; i++) {
            new Client("m" + i);
        }
        assertThat(c.heartbeat(join("m5", List.of("t"))).error())
                .isEqualTo(Errors.GROUP_MAX_SIZE_REACHED);
    }

    @Test
    void aRegexSubscriptionFollowsNewTopicsAndTheRangeAssignorIsUsedWhenAsked() {
        ConsumerGroupMessages.HeartbeatResult r =
                c.heartbeat(
                        new ConsumerGroupMessages.HeartbeatRequest(
                                "g",
                                "a",
                                0,
                                null,
                                null,
                                1000,
                                null,
                                "t|u.*",
                                "range",
                                Assignment.EMPTY,
                                null,
                                null));
        assertThat(r.assignment().partitions().keySet()).containsExactly("t");
        topics.put("u1", 2);
        topics.put("v", 2);
        ConsumerGroupMessages.HeartbeatResult r2 =
                c.heartbeat(beat("a", r.memberEpoch(), r.assignment()));
        assertThat(r2.memberEpoch())
                .as("new matching topic: new epoch")
                .isGreaterThan(r.memberEpoch());
        assertThat(r2.assignment().partitions().keySet()).containsExactly("t", "u1");
        assertThat(c.describe("g").orElseThrow().members().get(0).topicRegex()).isEqualTo("t|u.*");
    }

    @Test
    void aSilentMemberExpiresOnTheFirstMillisecondPastItsSessionAndItsPartitionsMove() {
        Client a = new Client("a");
        Client b = new Client("b");
        a.beat();
        a.beat();
        b.beat();
        timer.advance(SESSION_MS - 1000);
        a.beat();
        timer.advance(1000);
        assertThat(c.describe("g").orElseThrow().members())
                .as("b at exactly its session timeout")
                .hasSize(2);
        timer.advance(1);
        assertThat(c.describe("g").orElseThrow().members())
                .extracting(ConsumerGroupMessages.MemberDescription::memberId)
                .containsExactly("a");
        a.beat();
        assertThat(a.owned.size()).isEqualTo(6);
        assertThat(c.heartbeat(beat("b", b.epoch, b.owned)).error())
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void aMemberThatDoesNotRevokeWithinItsRebalanceTimeoutIsFenced() {
        Client a = new Client("a"); // rebalance timeout 30 s
        Client b = new Client("b");
        c.heartbeat(beat("a", a.epoch, null)); // told to revoke; does not report (owned null)
        timer.advance(29_999);
        c.heartbeat(beat("a", a.epoch, null)); // still holding on, heartbeating
        b.beat();
        assertThat(b.owned.isEmpty()).as("b waits for a's partitions").isTrue();
        timer.advance(1);
        assertThat(c.describe("g").orElseThrow().members())
                .extracting(ConsumerGroupMessages.MemberDescription::memberId)
                .containsExactly("b");
        b.beat();
        assertThat(b.owned.size()).isEqualTo(6);
    }

    @Test
    void commitsAndFetchesCheckTheMemberEpoch() {
        Client a = new Client("a");
        assertThat(c.checkOffsetAccess("g", "a", a.epoch, true)).contains(Errors.NONE);
        assertThat(c.checkOffsetAccess("g", "a", a.epoch - 1, true))
                .contains(Errors.STALE_MEMBER_EPOCH);
        assertThat(c.checkOffsetAccess("g", "zz", 1, true)).contains(Errors.UNKNOWN_MEMBER_ID);
        assertThat(c.checkOffsetAccess("g", "", -1, true))
                .as("admin commit to a non-empty group")
                .contains(Errors.UNKNOWN_MEMBER_ID);
        assertThat(c.checkOffsetAccess("g", null, -1, false))
                .as("admin fetch")
                .contains(Errors.NONE);
        assertThat(c.checkOffsetAccess("other", "a", 1, true)).as("not a consumer group").isEmpty();
        assertThat(c.delete("g")).contains(Errors.NON_EMPTY_GROUP);
        c.heartbeat(beat("a", ConsumerGroupCoordinator.LEAVE_EPOCH, null));
        assertThat(c.checkOffsetAccess("g", "", -1, true)).contains(Errors.NONE);
        assertThat(c.list())
                .extracting(ConsumerGroupMessages.GroupListing::state)
                .containsExactly("Empty");
        assertThat(c.delete("g")).contains(Errors.NONE);
        assertThat(c.isConsumerGroup("g")).isFalse();
    }

    static ConsumerGroupMessages.HeartbeatRequest staticJoin(String member, String instance) {
        return new ConsumerGroupMessages.HeartbeatRequest(
                "g",
                member,
                0,
                instance,
                null,
                30_000,
                List.of("t"),
                null,
                null,
                Assignment.EMPTY,
                "c",
                "/h");
    }

    /** Heartbeats every client until the group is Stable. */
    void settle(Collection<Client> clients) {
        for (int round = 0; round < 4; round++) {
            clients.forEach(Client::beat);
        }
        assertThat(c.describe("g").orElseThrow().state()).isEqualTo("Stable");
    }

    ConsumerGroupCoordinator reopen(Path dir) throws IOException {
        c.close();
        return open(dir);
    }

    ConsumerGroupCoordinator open(Path dir) throws IOException {
        return ConsumerGroupCoordinator.open(
                dir,
                new ConsumerGroupCoordinator.Settings(
                        SESSION_MS, 5_000, List.of(new UniformAssignor(), new RangeAssignor()), 4),
                topicsView(),
                classicInUse::contains,
                timer,
                time);
    }

    @Test
    void aReopenedCoordinatorCarriesOnWithTheSameEpochsAndAssignments(@TempDir Path dir)
            throws IOException {
        c = open(dir);
        Client a = new Client("a");
        Client b = new Client("b");
        settle(List.of(a, b));
        ConsumerGroupMessages.GroupDescription before = c.describe("g").orElseThrow();
        Assignment aOwned = a.owned;
        int aEpoch = a.epoch;
        c = reopen(dir);
        ConsumerGroupMessages.GroupDescription after = c.describe("g").orElseThrow();
        assertThat(after.groupEpoch()).isEqualTo(before.groupEpoch());
        assertThat(after.assignmentEpoch()).isEqualTo(before.assignmentEpoch());
        assertThat(after.members()).containsExactlyInAnyOrderElementsOf(before.members());
        assertThat(after.state()).isEqualTo("Stable");
        a.beat();
        b.beat();
        assertThat(a.epoch).as("no new epoch after the restart").isEqualTo(aEpoch);
        assertThat(a.owned).as("no reassignment").isEqualTo(aOwned);
        assertThat(c.describe("g").orElseThrow().groupEpoch()).isEqualTo(before.groupEpoch());
        // A member that does not come back expires a session timeout after the load.
        timer.advance(SESSION_MS / 2);
        a.beat();
        timer.advance(SESSION_MS / 2 + 1);
        a.beat();
        settle(List.of(a));
        assertThat(a.owned.size()).as("b expired, a took its partitions").isEqualTo(6);
        assertThat(c.describe("g").orElseThrow().members()).hasSize(1);
    }

    @Test
    void aDamagedFileIsMovedAsideAndItsMembersRejoinWithoutTwoOwners(@TempDir Path dir)
            throws IOException {
        c = open(dir);
        Client a = new Client("a");
        Client b = new Client("b");
        settle(List.of(a, b));
        c.close();
        Path file;
        try (var files = Files.list(dir.resolve("consumer-groups"))) {
            file = files.findFirst().orElseThrow();
        }
        Files.writeString(file, "group.id=g\nmembers=2\nmember.0.id=a\n");
        c = open(dir);
        try (var files = Files.list(dir.resolve("consumer-groups"))) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .singleElement()
                    .satisfies(n -> assertThat(n).contains(".corrupt-"));
        }
        assertThat(c.heartbeat(beat("a", a.epoch, a.owned)).error())
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        // a rejoins while b, not heard from yet, may still consume its partitions: a gets none
        // that nobody owns until a session timeout after the start.
        Client a2 = new Client("a");
        a2.beat();
        assertThat(a2.owned.overlaps(b.owned)).isFalse();
        assertThat(c.heartbeat(beat("b", b.epoch, b.owned)).error())
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        Client b2 = new Client("b");
        b2.beat();
        assertDisjoint(List.of(a2, b2));
        timer.advance(SESSION_MS / 2);
        a2.beat();
        b2.beat();
        timer.advance(SESSION_MS / 2 + 1);
        settle(List.of(a2, b2));
        assertThat(a2.owned.size() + b2.owned.size()).isEqualTo(6);
        assertDisjoint(List.of(a2, b2));
    }

    @Test
    void afterAKillTheUnwrittenChangeIsFencedAndNoPartitionIsOwnedTwice(@TempDir Path dir)
            throws IOException {
        c = open(dir);
        Client a = new Client("a");
        settle(List.of(a));
        timer.runDue();
        Path file;
        try (var files = Files.list(dir.resolve("consumer-groups"))) {
            file = files.findFirst().orElseThrow();
        }
        byte[] written = Files.readAllBytes(file);
        Client b = new Client("b");
        settle(List.of(a, b));
        assertThat(b.owned.isEmpty()).isFalse();
        // kill -9: what was written last is the state before b joined.
        c.close();
        Files.write(file, written);
        c = open(dir);
        assertThat(c.heartbeat(beat("a", a.epoch, a.owned)).error())
                .as("a is at an epoch the server does not know")
                .isEqualTo(Errors.FENCED_MEMBER_EPOCH);
        Client a2 = new Client("a");
        a2.beat();
        assertThat(a2.owned.overlaps(b.owned))
                .as("b has not heartbeated yet: what it owns is not handed out")
                .isFalse();
        assertThat(c.heartbeat(beat("b", b.epoch, b.owned)).error())
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        Client b2 = new Client("b");
        b2.beat();
        assertDisjoint(List.of(a2, b2));
        timer.advance(SESSION_MS / 2);
        a2.beat();
        b2.beat();
        timer.advance(SESSION_MS / 2 + 1);
        settle(List.of(a2, b2));
        assertThat(a2.owned.size() + b2.owned.size()).isEqualTo(6);
        assertDisjoint(List.of(a2, b2));
    }

    @Test
    void aStaticMemberThatLeavesKeepsItsPartitionsAndGetsThemBackWhenItRejoins() {
        Client s = new Client("s1", "i1");
        Client b = new Client("b");
        settle(List.of(s, b));
        Assignment sOwned = s.owned;
        Assignment bOwned = b.owned;
        int epoch = c.describe("g").orElseThrow().groupEpoch();
        assertThat(
                        c.heartbeat(beat("s1", ConsumerGroupCoordinator.STATIC_LEAVE_EPOCH, null))
                                .memberEpoch())
                .isEqualTo(ConsumerGroupCoordinator.STATIC_LEAVE_EPOCH);
        b.beat();
        assertThat(b.owned).as("nothing moves to b").isEqualTo(bOwned);
        assertThat(c.describe("g").orElseThrow().groupEpoch()).isEqualTo(epoch);
        // The restarted static consumer (a new member id) gets its epoch and partitions back.
        ConsumerGroupMessages.HeartbeatResult back = c.heartbeat(staticJoin("s2", "i1"));
        assertThat(back.error()).isEqualTo(Errors.NONE);
        assertThat(back.memberId()).isEqualTo("s2");
        assertThat(back.assignment()).isEqualTo(sOwned);
        assertThat(back.memberEpoch()).isEqualTo(s.epoch);
        b.beat();
        assertThat(b.owned).isEqualTo(bOwned);
        assertThat(c.describe("g").orElseThrow().groupEpoch()).isEqualTo(epoch);
        // A second live member with the same instance id is refused.
        ConsumerGroupMessages.HeartbeatResult dup = c.heartbeat(staticJoin("s3", "i1"));
        assertThat(dup.error()).isEqualTo(Errors.UNRELEASED_INSTANCE_ID);
        assertThat(dup.errorMessage())
                .isEqualTo(
                        "Static member s3 with instance id i1 cannot join the group because the"
                                + " instance id is owned by s2 member.");
        // A static member that left and does not come back expires after its session timeout.
        c.heartbeat(beat("s2", ConsumerGroupCoordinator.STATIC_LEAVE_EPOCH, null));
        timer.advance(SESSION_MS / 2);
        b.beat();
        timer.advance(SESSION_MS / 2 + 1);
        settle(List.of(b));
        assertThat(b.owned.size()).isEqualTo(6);
        assertThat(c.describe("g").orElseThrow().members()).hasSize(1);
    }
}
