package io.tierlog.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The replace-commit part of the catalog contract ({@link Catalog#replaceObjects}, retired objects,
 * the cold cleaned offset), run on every backend through {@link CatalogContract}.
 */
interface ReplaceCommitContract {
    String T = CatalogContract.T;
    long AT = 1_700_000_500_000L;

    Catalog catalog();

    Catalog openCatalog();

    Connection rawConnection() throws SQLException;

    List<String> commitTrapStatements();

    private static ColdObject obj(long first, long last) {
        return CatalogContract.obj(first, last);
    }

    private static ColdObject compacted(long first, long last) {
        return CatalogContract.obj(T, 0, first, last, "c/" + first + "-" + last);
    }

    private static List<String> keys(ColdObject... objects) {
        return java.util.Arrays.stream(objects).map(ColdObject::key).toList();
    }

    /** Topic T with one partition holding 0..9, 10..19, 20..29, 30..39. */
    private List<ColdObject> fourObjects() {
        catalog().createTopic(T, 1, Map.of());
        List<ColdObject> l = List.of(obj(0, 9), obj(10, 19), obj(20, 29), obj(30, 39));
        l.forEach(catalog()::commit);
        return l;
    }

    @Test
    default void aReplaceCommitSwapsARunForOneObjectOfTheSameRangeAndRetiresTheRun() {
        List<ColdObject> o = fourObjects();
        ColdObject c = compacted(10, 29);
        assertThat(catalog().replaceObjects(T, 0, keys(o.get(1), o.get(2)), c, 30, AT))
                .isEqualTo(CommitResult.COMMITTED);
        assertThat(catalog().objects(T, 0))
                .extracting(ColdObject::key)
                .containsExactly(o.get(0).key(), c.key(), o.get(3).key());
        assertThat(catalog().objectFor(T, 0, 25)).hasValue(c);
        PartitionState s = catalog().partitionState(T, 0);
        assertThat(s.coldHighWatermark()).isEqualTo(40);
        assertThat(s.coldLogStartOffset()).isZero();
        assertThat(s.objectCount()).isEqualTo(3);
        assertThat(s.coldCleanedOffset()).isEqualTo(30);
        assertThat(s.lastColdCleaningMs()).isEqualTo(AT);
        assertThat(catalog().allObjectKeys()).doesNotContain(o.get(1).key(), o.get(2).key());
        assertThat(catalog().retiredObjects(AT))
                .containsExactlyInAnyOrder(
                        new RetiredObject(T, 0, o.get(1).key(), AT),
                        new RetiredObject(T, 0, o.get(2).key(), AT));
        assertThat(catalog().retiredObjects(AT - 1)).as("retired at AT, not before").isEmpty();
        catalog().forgetRetired(o.get(1).key());
        catalog().forgetRetired(o.get(1).key()); // idempotent
        assertThat(catalog().retiredObjects(Long.MAX_VALUE))
                .extracting(RetiredObject::key)
                .containsExactly(o.get(2).key());
    }

    @Test
    default void aNeverCompactedPartitionHasCleanedOffsetZeroAndTheCleanedOffsetNeverGoesBack() {
        List<ColdObject> o = fourObjects();
        assertThat(catalog().partitionState(T, 0).coldCleanedOffset()).isZero();
        assertThat(catalog().partitionState(T, 0).lastColdCleaningMs()).isEqualTo(-1);
        catalog().replaceObjects(T, 0, keys(o.get(2), o.get(3)), compacted(20, 39), 40, AT);
        catalog().replaceObjects(T, 0, keys(o.get(0)), compacted(0, 9), 10, AT + 5);
        PartitionState s = catalog().partitionState(T, 0);
        assertThat(s.coldCleanedOffset()).isEqualTo(40);
        assertThat(s.lastColdCleaningMs()).isEqualTo(AT + 5);
        assertThat(catalog().retiredObjects(Long.MAX_VALUE))
                .extracting(RetiredObject::retiredAtMs)
                .containsExactly(AT, AT, AT + 5);
        // A compacted object can itself be compacted again, with its neighbour.
        assertThat(
                        catalog()
                                .replaceObjects(
                                        T,
                                        0,
                                        List.of("c/0-9", o.get(1).key()),
                                        compacted(0, 19),
                                        40,
                                        AT + 9))
                .isEqualTo(CommitResult.COMMITTED);
        assertThat(catalog().objects(T, 0))
                .extracting(ColdObject::key)
                .containsExactly("c/0-19", "c/20-39");
    }

    @Test
    default void aRunThatIsNotExactlyAsGivenIsAConflictAndWritesNothing() {
        List<ColdObject> o = fourObjects();
        List<ColdObject> before = catalog().objects(T, 0);
        record Case(String why, List<String> keys, ColdObject replacement) {}
        List<Case> cases =
                List.of(
                        new Case("not adjacent", keys(o.get(0), o.get(2)), compacted(0, 29)),
                        new Case("out of order", keys(o.get(2), o.get(1)), compacted(10, 29)),
                        new Case("range too short", keys(o.get(1), o.get(2)), compacted(10, 28)),
                        new Case("range too long", keys(o.get(1), o.get(2)), compacted(10, 30)),
                        new Case("range shifted", keys(o.get(1)), compacted(11, 20)),
                        new Case(
                                "a key not committed",
                                List.of(o.get(1).key(), "k/nope"),
                                compacted(10, 29)));
        for (Case k : cases) {
            assertThatThrownBy(
                            () -> catalog().replaceObjects(T, 0, k.keys(), k.replacement(), 30, AT))
                    .as(k.why())
                    .isInstanceOf(CommitConflictException.class)
                    .satisfies(
                            e ->
                                    assertThat(((CommitConflictException) e).coldHighWatermark())
                                            .isEqualTo(40));
        }
        assertThat(catalog().objects(T, 0)).isEqualTo(before);
        assertThat(catalog().retiredObjects(Long.MAX_VALUE)).isEmpty();
        assertThat(catalog().partitionState(T, 0).lastColdCleaningMs()).isEqualTo(-1);
    }

    @Test
    default void unknownTopicOrPartitionOrAReplacementKeyInUseFailsWithoutConflict() {
        List<ColdObject> o = fourObjects();
        ColdObject other = CatalogContract.obj("nope", 0, 10, 19, "c/x");
        assertThatThrownBy(() -> catalog().replaceObjects("nope", 0, keys(o.get(1)), other, 0, AT))
                .isExactlyInstanceOf(CommitFailedException.class)
                .hasMessageContaining("unknown topic");
        ColdObject p3 = CatalogContract.obj(T, 3, 10, 19, "c/y");
        assertThatThrownBy(() -> catalog().replaceObjects(T, 3, keys(o.get(1)), p3, 0, AT))
                .isExactlyInstanceOf(CommitFailedException.class)
                .hasMessageContaining("unknown partition");
        // The replacement's key names another committed object.
        ColdObject reused = CatalogContract.obj(T, 0, 10, 19, o.get(0).key());
        assertThatThrownBy(() -> catalog().replaceObjects(T, 0, keys(o.get(1)), reused, 0, AT))
                .isExactlyInstanceOf(CommitFailedException.class)
                .hasMessageContaining("already committed");
        assertThatThrownBy(
                        () ->
                                catalog()
                                        .replaceObjects(
                                                T, 0, keys(o.get(1)), compacted(10, 19), -1, AT))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(catalog().objects(T, 0)).isEqualTo(o);
    }

    @Test
    default void aRetryAfterAnUnknownOutcomeIsAlreadyCommittedOnceTheReplacementStands()
            throws Exception {
        List<ColdObject> o = fourObjects();
        ColdObject c = compacted(10, 29);
        try (Catalog other = openCatalog()) {
            // The first attempt "timed out" but won: another connection shows it standing.
            assertThat(other.replaceObjects(T, 0, keys(o.get(1), o.get(2)), c, 30, AT))
                    .isEqualTo(CommitResult.COMMITTED);
        }
        assertThat(catalog().replaceObjects(T, 0, keys(o.get(1), o.get(2)), c, 30, AT + 1))
                .isEqualTo(CommitResult.ALREADY_COMMITTED);
        assertThat(catalog().retiredObjects(Long.MAX_VALUE))
                .extracting(RetiredObject::retiredAtMs)
                .as("the retry wrote nothing")
                .containsOnly(AT);
        // Later compacted again: the replacement is retired, the retry still knows it won.
        catalog()
                .replaceObjects(
                        T, 0, List.of(c.key()), CatalogContract.obj(T, 0, 10, 29, "c/2"), 30, AT);
        assertThat(catalog().replaceObjects(T, 0, keys(o.get(1), o.get(2)), c, 30, AT + 2))
                .isEqualTo(CommitResult.ALREADY_COMMITTED);
        // An offload's late retry of a commit that a compaction has retired since.
        assertThat(catalog().commit(o.get(1))).isEqualTo(CommitResult.ALREADY_COMMITTED);
        assertThat(catalog().objects(T, 0)).extracting(ColdObject::key).contains("c/2");
    }

    @Test
    default void aFailedFinalCommitOfAReplaceIsUnknownOutcomeAndItsRetryCommits() throws Exception {
        List<ColdObject> o = fourObjects();
        try (Connection c = rawConnection();
                Statement s = c.createStatement()) {
            for (String sql : commitTrapStatements()) {
                s.execute(sql);
            }
        }
        ColdObject c = compacted(10, 29);
        assertThatThrownBy(
                        () -> catalog().replaceObjects(T, 0, keys(o.get(1), o.get(2)), c, 30, AT))
                .isInstanceOf(CommitStateUnknownException.class)
                .hasMessageContaining("unknown outcome");
        assertThat(catalog().objects(T, 0)).as("this failure rolled back").isEqualTo(o);
        try (Connection raw = rawConnection();
                Statement s = raw.createStatement()) {
            s.execute("DROP TRIGGER trap_insert" + (isPostgres(raw) ? " ON cold_objects" : ""));
        }
        assertThat(catalog().replaceObjects(T, 0, keys(o.get(1), o.get(2)), c, 30, AT))
                .isEqualTo(CommitResult.COMMITTED);
        assertThat(catalog().replaceObjects(T, 0, keys(o.get(1), o.get(2)), c, 30, AT))
                .isEqualTo(CommitResult.ALREADY_COMMITTED);
    }

    private static boolean isPostgres(Connection c) throws SQLException {
        return c.getMetaData().getDatabaseProductName().toLowerCase().contains("postgres");
    }

    @Test
    default void twoReplacesOfOverlappingRunsHaveExactlyOneWinner() throws Exception {
        int rounds = 20;
        catalog().createTopic(T, rounds, Map.of());
        try (Catalog other = openCatalog()) {
            for (int p = 0; p < rounds; p++) {
                List<ColdObject> o = new ArrayList<>();
                for (long f = 0; f < 30; f += 10) {
                    ColdObject x = CatalogContract.obj(T, p, f, f + 9, "k/" + p + "/" + f);
                    catalog().commit(x);
                    o.add(x);
                }
                int part = p;
                ColdObject left = CatalogContract.obj(T, p, 0, 19, "left/" + p);
                ColdObject right = CatalogContract.obj(T, p, 10, 29, "right/" + p);
                List<Outcome> outcomes =
                        race(
                                () ->
                                        catalog()
                                                .replaceObjects(
                                                        T,
                                                        part,
                                                        keys(o.get(0), o.get(1)),
                                                        left,
                                                        20,
                                                        AT),
                                () ->
                                        other.replaceObjects(
                                                T, part, keys(o.get(1), o.get(2)), right, 30, AT));
                assertThat(outcomes)
                        .as("round " + p)
                        .containsExactlyInAnyOrder(Outcome.WON, Outcome.CONFLICT);
                List<ColdObject> now = catalog().objects(T, p);
                assertThat(now)
                        .containsExactlyElementsOf(
                                outcomes.get(0) == Outcome.WON
                                        ? List.of(left, o.get(2))
                                        : List.of(o.get(0), right));
                assertThat(catalog().retiredObjects(Long.MAX_VALUE))
                        .filteredOn(r -> r.partition() == part)
                        .hasSize(2);
            }
        }
    }

    @Test
    default void aReplaceRacingRetentionOrDeleteRecordsHasExactlyOneWinner() throws Exception {
        int rounds = 20;
        catalog().createTopic(T, rounds, Map.of());
        try (Catalog other = openCatalog()) {
            for (int p = 0; p < rounds; p++) {
                List<ColdObject> o = new ArrayList<>();
                for (long f = 0; f < 30; f += 10) {
                    ColdObject x = CatalogContract.obj(T, p, f, f + 9, "k/" + p + "/" + f);
                    catalog().commit(x);
                    o.add(x);
                }
                int part = p;
                boolean deleteRecords = p % 2 == 1;
                ColdObject c = CatalogContract.obj(T, p, 0, 19, "c/" + p);
                List<ColdObject> removed = new ArrayList<>();
                List<Outcome> outcomes =
                        race(
                                () ->
                                        catalog()
                                                .replaceObjects(
                                                        T,
                                                        part,
                                                        keys(o.get(0), o.get(1)),
                                                        c,
                                                        20,
                                                        AT),
                                () -> {
                                    removed.addAll(
                                            deleteRecords
                                                    ? other.advanceLogStart(T, part, 20, 20)
                                                            .removed()
                                                    : other.removeObjectsBelow(T, part, 20));
                                    return CommitResult.COMMITTED;
                                });
                List<String> retired =
                        catalog().retiredObjects(Long.MAX_VALUE).stream()
                                .filter(r -> r.partition() == part)
                                .map(RetiredObject::key)
                                .toList();
                if (outcomes.get(0) == Outcome.WON) {
                    // The replace went first: retention then removed the replacement.
                    assertThat(removed).containsExactly(c);
                    assertThat(retired)
                            .containsExactlyInAnyOrderElementsOf(keys(o.get(0), o.get(1)));
                } else {
                    assertThat(outcomes.get(0)).isEqualTo(Outcome.CONFLICT);
                    assertThat(removed).containsExactly(o.get(0), o.get(1));
                    assertThat(retired).isEmpty();
                }
                assertThat(catalog().objects(T, p)).containsExactly(o.get(2));
                assertThat(catalog().partitionState(T, p).coldLogStartOffset()).isEqualTo(20);
            }
        }
    }

    @Test
    default void aMergeCommitSwapsARunAndRetiresItButLeavesTheCleaningStateAlone() {
        List<ColdObject> o = fourObjects();
        ColdObject c = compacted(0, 19);
        catalog().replaceObjects(T, 0, keys(o.get(0), o.get(1)), c, 20, AT);
        ColdObject m = CatalogContract.obj(T, 0, 20, 39, "m/20-39");
        assertThat(catalog().mergeObjects(T, 0, keys(o.get(2), o.get(3)), m, AT + 5))
                .isEqualTo(CommitResult.COMMITTED);
        assertThat(catalog().objects(T, 0)).containsExactly(c, m);
        PartitionState s = catalog().partitionState(T, 0);
        assertThat(s.coldHighWatermark()).isEqualTo(40);
        assertThat(s.coldCleanedOffset()).as("a merge is not a compaction").isEqualTo(20);
        assertThat(s.lastColdCleaningMs()).isEqualTo(AT);
        assertThat(catalog().retiredObjects(AT + 5))
                .contains(
                        new RetiredObject(T, 0, o.get(2).key(), AT + 5),
                        new RetiredObject(T, 0, o.get(3).key(), AT + 5));
        // A retry after an unknown outcome: it won, nothing more is written.
        assertThat(catalog().mergeObjects(T, 0, keys(o.get(2), o.get(3)), m, AT + 6))
                .isEqualTo(CommitResult.ALREADY_COMMITTED);
        assertThat(catalog().retiredObjects(Long.MAX_VALUE)).hasSize(4);
    }

    @Test
    default void aMergeOfANeverCompactedPartitionKeepsCleanedOffsetZero() {
        List<ColdObject> o = fourObjects();
        ColdObject m = CatalogContract.obj(T, 0, 0, 39, "m/0-39");
        assertThat(catalog().mergeObjects(T, 0, keys(o.toArray(ColdObject[]::new)), m, AT))
                .isEqualTo(CommitResult.COMMITTED);
        PartitionState s = catalog().partitionState(T, 0);
        assertThat(s.coldCleanedOffset()).isZero();
        assertThat(s.objectCount()).isEqualTo(1);
        assertThat(catalog().objectFor(T, 0, 33)).hasValue(m);
    }

    @Test
    default void aMergeOfARunThatChangedIsAConflictAndWritesNothing() {
        List<ColdObject> o = fourObjects();
        catalog().removeObjectsBelow(T, 0, 10);
        ColdObject m = CatalogContract.obj(T, 0, 0, 19, "m/0-19");
        assertThatThrownBy(() -> catalog().mergeObjects(T, 0, keys(o.get(0), o.get(1)), m, AT))
                .isInstanceOf(CommitConflictException.class)
                .hasMessageContaining("merge-commit");
        assertThat(catalog().objects(T, 0)).containsExactly(o.get(1), o.get(2), o.get(3));
        assertThat(catalog().retiredObjects(Long.MAX_VALUE)).isEmpty();
        assertThatThrownBy(
                        () ->
                                catalog()
                                        .mergeObjects(
                                                T,
                                                0,
                                                keys(o.get(1), o.get(3)),
                                                CatalogContract.obj(T, 0, 10, 39, "m/10-39"),
                                                AT))
                .as("not adjacent")
                .isInstanceOf(CommitConflictException.class);
    }

    @Test
    default void aMergeRacingRetentionHasExactlyOneWinner() throws Exception {
        int rounds = 10;
        catalog().createTopic(T, rounds, Map.of());
        try (Catalog other = openCatalog()) {
            for (int p = 0; p < rounds; p++) {
                List<ColdObject> o = new ArrayList<>();
                for (long f = 0; f < 30; f += 10) {
                    ColdObject x = CatalogContract.obj(T, p, f, f + 9, "k/" + p + "/" + f);
                    catalog().commit(x);
                    o.add(x);
                }
                int part = p;
                ColdObject m = CatalogContract.obj(T, p, 0, 19, "m/" + p);
                List<ColdObject> removed = new ArrayList<>();
                List<Outcome> outcomes =
                        race(
                                () ->
                                        catalog()
                                                .mergeObjects(
                                                        T, part, keys(o.get(0), o.get(1)), m, AT),
                                () -> {
                                    removed.addAll(other.removeObjectsBelow(T, part, 20));
                                    return CommitResult.COMMITTED;
                                });
                if (outcomes.get(0) == Outcome.WON) {
                    assertThat(removed).containsExactly(m);
                } else {
                    assertThat(removed).containsExactly(o.get(0), o.get(1));
                }
                assertThat(catalog().objects(T, p)).containsExactly(o.get(2));
                assertThat(catalog().partitionState(T, p).coldCleanedOffset()).isZero();
            }
        }
    }

    enum Outcome {
        WON,
        CONFLICT
    }

    /** Runs both at once (after a barrier); what each got. */
    private static List<Outcome> race(Callable<CommitResult> a, Callable<CommitResult> b)
            throws Exception {
        CyclicBarrier barrier = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<Outcome>> fs = new ArrayList<>();
            for (Callable<CommitResult> task : List.of(a, b)) {
                fs.add(
                        pool.submit(
                                () -> {
                                    barrier.await(30, TimeUnit.SECONDS);
                                    try {
                                        assertThat(task.call()).isEqualTo(CommitResult.COMMITTED);
                                        return Outcome.WON;
                                    } catch (CommitConflictException e) {
                                        return Outcome.CONFLICT;
                                    }
                                }));
            }
            List<Outcome> out = new ArrayList<>();
            for (Future<Outcome> f : fs) {
                out.add(f.get(60, TimeUnit.SECONDS));
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }
}
