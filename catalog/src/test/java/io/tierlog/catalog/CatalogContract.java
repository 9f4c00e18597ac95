package io.tierlog.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link Catalog} backend must have. Subclasses supply a database: {@link
 * SqliteCatalogTest} always, {@link PostgresCatalogIT} when a PostgreSQL server is reachable.
 */
abstract class CatalogContract
        implements ReplaceCommitContract, SchemaStoreContract, SchemaImportContract {
    static final String T = "orders";

    Catalog catalog;

    /** The JDBC URL of the database under test. */
    abstract String url();

    @Override
    public Catalog catalog() {
        return catalog;
    }

    /** A new catalog on the same database each call (so reopening and racing can be tested). */
    @Override
    public Catalog openCatalog() {
        return Catalog.open(url());
    }

    /** An empty catalog on a database of its own (a SQLite file; skipped on other backends). */
    @Override
    public Catalog freshCatalog() {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                url().startsWith("jdbc:sqlite:"), "a database of its own only with SQLite");
        try {
            java.nio.file.Path f = java.nio.file.Files.createTempFile("fresh-catalog", ".db");
            java.nio.file.Files.delete(f);
            return Catalog.open("jdbc:sqlite:" + f);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A plain JDBC connection to the same database, for fault injection. */
    @Override
    public Connection rawConnection() throws SQLException {
        return DriverManager.getConnection(url());
    }

    /**
     * SQL statements that make the next COMMIT of a cold object insert fail: a trigger ({@link
     * #commitTrapTrigger}) inserts into {@code trap} a row whose deferred foreign key is checked
     * only at COMMIT, where it fails.
     */
    @Override
    public final List<String> commitTrapStatements() {
        List<String> statements =
                new java.util.ArrayList<>(
                        List.of(
                                "CREATE TABLE trap_target (y INTEGER PRIMARY KEY)",
                                "CREATE TABLE trap (x INTEGER REFERENCES trap_target(y)"
                                        + " DEFERRABLE INITIALLY DEFERRED)"));
        statements.addAll(commitTrapTrigger());
        return statements;
    }

    /**
     * In this database's dialect: the statements that make every insert into {@code cold_objects}
     * insert the value 42 into {@code trap}.
     */
    abstract List<String> commitTrapTrigger();

    @BeforeEach
    void openFirst() {
        catalog = openCatalog();
    }

    @AfterEach
    void closeFirst() {
        if (catalog != null) {
            catalog.close();
        }
    }

    static ColdObject obj(String topic, int p, long first, long last, String key) {
        return new ColdObject(
                topic,
                p,
                first,
                last,
                first * 10,
                last * 10,
                last - first + 1,
                1000,
                key,
                Instant.ofEpochMilli(1_700_000_000_000L));
    }

    static ColdObject obj(long first, long last) {
        return obj(T, 0, first, last, "k/" + first + "-" + last);
    }

    @Test
    void ensureTopicCreatesOrRaisesWithoutTouchingConfigs() {
        catalog.createTopic(T, 1, Map.of("segment.bytes", "1048576"));
        TopicRecord t = catalog.ensureTopic(T, 3);
        assertThat(t.partitions()).isEqualTo(3);
        assertThat(catalog.topic(T).orElseThrow().configs())
                .containsEntry("segment.bytes", "1048576");
        assertThat(catalog.ensureTopic(T, 2).partitions()).isEqualTo(3);
        assertThat(catalog.ensureTopic("fresh", 2).configs()).isEmpty();
    }

    @Test
    void importTopicTakesTheGivenIdAndKeepsColdObjects() {
        java.util.UUID id = java.util.UUID.randomUUID();
        catalog.createTopic(T, 2, Map.of());
        catalog.commit(obj(T, 1, 0, 9, "k/imported"));
        TopicRecord t = catalog.importTopic(id, T, 3, Map.of("segment.bytes", "1048576"));
        assertThat(t.id()).isEqualTo(id);
        assertThat(catalog.topic(T).orElseThrow())
                .satisfies(
                        r -> {
                            assertThat(r.id()).isEqualTo(id);
                            assertThat(r.partitions()).isEqualTo(3);
                            assertThat(r.configs()).containsEntry("segment.bytes", "1048576");
                        });
        assertThat(catalog.objects(T, 1)).extracting(ColdObject::key).containsExactly("k/imported");
        assertThat(catalog.partitionState(T, 1).coldHighWatermark()).isEqualTo(10);
        assertThat(catalog.topics()).extracting(TopicRecord::name).containsExactly(T);
        // again: no change
        assertThat(catalog.importTopic(id, T, 3, Map.of("segment.bytes", "1048576")))
                .isEqualTo(catalog.topic(T).orElseThrow());
        // absent: created under the id
        java.util.UUID other = java.util.UUID.randomUUID();
        assertThat(catalog.importTopic(other, "other", 1, Map.of()).id()).isEqualTo(other);
        assertThat(catalog.topic("other").orElseThrow().id()).isEqualTo(other);
    }

    @Test
    void createTopicIsIdempotentForSameDefinitionAndRefusesADifferentOne() {
        TopicRecord t = catalog.createTopic(T, 3, Map.of("cleanup.policy", "delete"));
        assertThat(catalog.createTopic(T, 3, Map.of("cleanup.policy", "delete"))).isEqualTo(t);
        assertThatThrownBy(() -> catalog.createTopic(T, 4, Map.of("cleanup.policy", "delete")))
                .isInstanceOf(TopicConflictException.class)
                .hasMessageContaining("3 partitions");
        assertThat(catalog.topic(T)).contains(t);
        assertThat(catalog.topic("absent")).isEmpty();
        catalog.createTopic("alpha", 1, Map.of());
        assertThat(catalog.topics()).extracting(TopicRecord::name).containsExactly("alpha", T);
    }

    @Test
    void topicConfigsAndPartitionCountCanChangeButPartitionsNeverShrink() {
        catalog.createTopic(T, 2, Map.of("a", "1"));
        assertThat(catalog.updateTopicConfigs(T, Map.of("b", "2")).configs())
                .isEqualTo(Map.of("b", "2"));
        assertThat(catalog.ensurePartitions(T, 5).partitions()).isEqualTo(5);
        assertThat(catalog.ensurePartitions(T, 3).partitions()).isEqualTo(5);
        assertThat(catalog.partitionState(T, 4).empty()).isTrue();
        assertThat(catalog.topic(T).orElseThrow().configs()).isEqualTo(Map.of("b", "2"));
        assertThatThrownBy(() -> catalog.ensurePartitions("absent", 2))
                .isInstanceOf(CatalogException.class)
                .hasMessageContaining("absent");
    }

    @Test
    void emptyPartitionAcceptsAFirstObjectAtAnyOffsetThenOnlyContiguousOnes() {
        catalog.createTopic(T, 1, Map.of());
        PartitionState s = catalog.partitionState(T, 0);
        assertThat(s.empty()).isTrue();
        assertThat(s.coldHighWatermark()).isZero();

        // A Kafka dir whose log starts at 1200.
        assertThat(catalog.commit(obj(1200, 1299))).isEqualTo(CommitResult.COMMITTED);
        assertThat(catalog.commit(obj(1300, 1349))).isEqualTo(CommitResult.COMMITTED);
        s = catalog.partitionState(T, 0);
        assertThat(s.coldHighWatermark()).isEqualTo(1350);
        assertThat(s.coldLogStartOffset()).isEqualTo(1200);
        assertThat(s.objectCount()).isEqualTo(2);
        assertThat(s.committedBytes()).isEqualTo(2000);
    }

    @Test
    void gapAndOverlapAreRefusedWithTheCurrentWatermarkAndWriteNothing() {
        catalog.createTopic(T, 1, Map.of());
        catalog.commit(obj(0, 99));
        assertThatThrownBy(() -> catalog.commit(obj(101, 150)))
                .isInstanceOfSatisfying(
                        CommitConflictException.class,
                        e -> assertThat(e.coldHighWatermark()).isEqualTo(100))
                .hasMessageContaining("gap");
        assertThatThrownBy(() -> catalog.commit(obj(50, 150)))
                .isInstanceOfSatisfying(
                        CommitConflictException.class,
                        e -> assertThat(e.coldHighWatermark()).isEqualTo(100))
                .hasMessageContaining("overlap");
        assertThat(catalog.objects(T, 0)).extracting(ColdObject::key).containsExactly("k/0-99");
        assertThat(catalog.partitionState(T, 0).coldHighWatermark()).isEqualTo(100);
    }

    @Test
    void recommittingTheSameObjectIsANoOpSuccessEvenAfterLaterCommits() {
        catalog.createTopic(T, 1, Map.of());
        assertThat(catalog.commit(obj(0, 9))).isEqualTo(CommitResult.COMMITTED);
        assertThat(catalog.commit(obj(0, 9))).isEqualTo(CommitResult.ALREADY_COMMITTED);
        catalog.commit(obj(10, 19));
        assertThat(catalog.commit(obj(0, 9))).isEqualTo(CommitResult.ALREADY_COMMITTED);
        assertThat(catalog.objects(T, 0)).hasSize(2);
    }

    @Test
    void sameRangeUnderAnotherKeyIsAConflictAndSameKeyWithAnotherRangeIsRefused() {
        catalog.createTopic(T, 1, Map.of());
        catalog.commit(obj(0, 9));
        assertThatThrownBy(() -> catalog.commit(obj(T, 0, 0, 9, "other-key")))
                .isInstanceOf(CommitConflictException.class);
        assertThatThrownBy(() -> catalog.commit(obj(T, 0, 10, 19, "k/0-9")))
                .isInstanceOf(CommitFailedException.class)
                .isNotInstanceOf(CommitConflictException.class)
                .hasMessageContaining("already committed");
    }

    @Test
    void commitToUnknownTopicOrPartitionFailsSafely() {
        assertThatThrownBy(() -> catalog.commit(obj("nope", 0, 0, 1, "x")))
                .isInstanceOf(CommitFailedException.class)
                .hasMessageContaining("unknown topic");
        catalog.createTopic(T, 1, Map.of());
        assertThatThrownBy(() -> catalog.commit(obj(T, 1, 0, 1, "y")))
                .isInstanceOf(CommitFailedException.class)
                .hasMessageContaining("unknown partition");
        assertThatThrownBy(() -> catalog.partitionState(T, 7)).isInstanceOf(CatalogException.class);
    }

    @Test
    void partitionsOfATopicAreIndependent() {
        catalog.createTopic(T, 2, Map.of());
        catalog.commit(obj(T, 0, 0, 9, "p0"));
        catalog.commit(obj(T, 1, 500, 509, "p1"));
        assertThat(catalog.partitionState(T, 0).coldHighWatermark()).isEqualTo(10);
        assertThat(catalog.partitionState(T, 1).coldHighWatermark()).isEqualTo(510);
        assertThat(catalog.objectFor(T, 1, 5)).isEmpty();
    }

    @Test
    void objectForFindsTheObjectHoldingAnOffsetIncludingItsBoundaries() {
        catalog.createTopic(T, 1, Map.of());
        catalog.commit(obj(100, 199));
        catalog.commit(obj(200, 200));
        catalog.commit(obj(201, 300));
        assertThat(catalog.objectFor(T, 0, 100).orElseThrow().key()).isEqualTo("k/100-199");
        assertThat(catalog.objectFor(T, 0, 199).orElseThrow().key()).isEqualTo("k/100-199");
        assertThat(catalog.objectFor(T, 0, 200).orElseThrow().key()).isEqualTo("k/200-200");
        assertThat(catalog.objectFor(T, 0, 300).orElseThrow().key()).isEqualTo("k/201-300");
        assertThat(catalog.objectFor(T, 0, 99)).isEmpty();
        assertThat(catalog.objectFor(T, 0, 301)).isEmpty();
        assertThat(catalog.objectFor("absent", 0, 5)).isEmpty();
    }

    @Test
    void firstObjectReachingATimestampIsTheLowestOffsetObjectWhoseMaxTimestampReachesIt() {
        catalog.createTopic(T, 1, Map.of());
        Instant now = Instant.now();
        // Timestamps need not grow with offsets (CreateTime from producers).
        catalog.commit(new ColdObject(T, 0, 0, 9, 1000, 5000, 10, 1, "a", now));
        catalog.commit(new ColdObject(T, 0, 10, 19, 2000, 3000, 10, 1, "b", now));
        catalog.commit(new ColdObject(T, 0, 20, 29, 6000, 9000, 10, 1, "c", now));
        assertThat(catalog.firstObjectReaching(T, 0, 0).orElseThrow().key()).isEqualTo("a");
        assertThat(catalog.firstObjectReaching(T, 0, 5000).orElseThrow().key()).isEqualTo("a");
        assertThat(catalog.firstObjectReaching(T, 0, 5001).orElseThrow().key()).isEqualTo("c");
        assertThat(catalog.firstObjectReaching(T, 0, 9001)).isEmpty();
    }

    @Test
    void removingObjectsBelowAnOffsetAdvancesColdLogStartButNotTheWatermark() {
        catalog.createTopic(T, 1, Map.of());
        catalog.commit(obj(0, 9));
        catalog.commit(obj(10, 19));
        catalog.commit(obj(20, 29));
        assertThat(catalog.removeObjectsBelow(T, 0, 25))
                .extracting(ColdObject::key)
                .containsExactly("k/0-9", "k/10-19");
        PartitionState s = catalog.partitionState(T, 0);
        assertThat(s.coldLogStartOffset()).isEqualTo(20);
        assertThat(s.coldHighWatermark()).isEqualTo(30);
        assertThat(catalog.removeObjectsBelow(T, 0, 100)).hasSize(1);
        s = catalog.partitionState(T, 0);
        assertThat(s.coldHighWatermark()).isEqualTo(30);
        assertThat(s.coldLogStartOffset()).isEqualTo(30);
        // The watermark survives: the next object must still start at 30.
        assertThatThrownBy(() -> catalog.commit(obj(0, 5)))
                .isInstanceOf(CommitConflictException.class);
        assertThat(catalog.commit(obj(30, 31))).isEqualTo(CommitResult.COMMITTED);
    }

    @Test
    void advancingTheLogStartRemovesWhollyBelowObjectsKeepsAPartlyBelowOneAndNeverGoesBack() {
        catalog.createTopic(T, 1, Map.of());
        catalog.commit(obj(0, 9));
        catalog.commit(obj(10, 19));
        catalog.commit(obj(20, 29));
        LogStartUpdate u = catalog.advanceLogStart(T, 0, 15, 15);
        assertThat(u.logStartOffset()).isEqualTo(15);
        assertThat(u.removed()).extracting(ColdObject::key).containsExactly("k/0-9");
        PartitionState s = catalog.partitionState(T, 0);
        assertThat(s.logStartOffset()).isEqualTo(15);
        assertThat(s.coldLogStartOffset()).isEqualTo(10); // [10, 19] is only partly below
        assertThat(s.coldHighWatermark()).isEqualTo(30); // the floor is below it: unchanged
        // Lower again: nothing moves back, nothing is removed.
        u = catalog.advanceLogStart(T, 0, 5, 5);
        assertThat(u.logStartOffset()).isEqualTo(15);
        assertThat(u.removed()).isEmpty();
        // Past the cold high watermark: every object goes and the next one starts at the floor.
        u = catalog.advanceLogStart(T, 0, 45, 40);
        assertThat(u.removed()).extracting(ColdObject::key).containsExactly("k/10-19", "k/20-29");
        s = catalog.partitionState(T, 0);
        assertThat(s.coldHighWatermark()).isEqualTo(40);
        assertThat(s.coldLogStartOffset()).isEqualTo(40);
        assertThat(s.logStartOffset()).isEqualTo(45);
        assertThatThrownBy(() -> catalog.commit(obj(30, 39)))
                .isInstanceOf(CommitConflictException.class);
        assertThat(catalog.commit(obj(40, 49))).isEqualTo(CommitResult.COMMITTED);
        assertThat(catalog.partitionState(T, 0).coldLogStartOffset()).isEqualTo(40);
        assertThatThrownBy(() -> catalog.advanceLogStart(T, 3, 1, 1))
                .isInstanceOf(CatalogException.class);
    }

    @Test
    void aLogStartOnANeverOffloadedPartitionMakesTheFirstCommitStartAtTheFloor() {
        catalog.createTopic(T, 1, Map.of());
        catalog.advanceLogStart(T, 0, 100, 90);
        PartitionState s = catalog.partitionState(T, 0);
        assertThat(s.logStartOffset()).isEqualTo(100);
        assertThat(s.empty()).isTrue();
        // an upload of the deleted offsets that was under way loses
        assertThatThrownBy(() -> catalog.commit(obj(0, 50)))
                .isInstanceOf(CommitConflictException.class);
        assertThat(catalog.commit(obj(90, 120))).isEqualTo(CommitResult.COMMITTED);
        try (Catalog again = Catalog.open(url())) {
            assertThat(again.partitionState(T, 0).logStartOffset()).isEqualTo(100);
        }
    }

    @Test
    void deletingATopicDropsItsObjectsFromTheKeyListSoTheSweeperCanReclaimThem() {
        catalog.createTopic(T, 1, Map.of());
        catalog.createTopic("keep", 1, Map.of());
        catalog.commit(obj(0, 9));
        catalog.commit(obj("keep", 0, 0, 9, "keep/0"));
        assertThat(catalog.allObjectKeys()).containsExactly("k/0-9", "keep/0");
        catalog.deleteTopic(T);
        catalog.deleteTopic(T);
        assertThat(catalog.allObjectKeys()).containsExactly("keep/0");
        assertThat(catalog.topic(T)).isEmpty();
        TopicRecord again = catalog.createTopic(T, 1, Map.of());
        assertThat(catalog.partitionState(T, 0).empty()).isTrue();
        assertThat(again.id()).isNotNull();
    }

    @Test
    void everythingSurvivesReopening() {
        catalog.createTopic(T, 1, Map.of("x", "y"));
        catalog.commit(obj(5, 9));
        catalog.close();
        catalog = openCatalog();
        assertThat(catalog.topic(T).orElseThrow().configs()).containsEntry("x", "y");
        assertThat(catalog.partitionState(T, 0).coldHighWatermark()).isEqualTo(10);
        assertThat(catalog.objects(T, 0)).containsExactly(obj(5, 9));
    }

    @Test
    void theCatalogHasOneIdThatSurvivesReopeningAndIsProvedDurable() {
        java.util.UUID id = catalog.id();
        assertThat(catalog.durableId()).isEqualTo(id);
        try (Catalog again = openCatalog()) {
            assertThat(again.id()).isEqualTo(id);
            assertThat(again.durableId()).isEqualTo(id);
        }
    }

    @Test
    void anEmptyCatalogCanBeGivenAnotherIdForARebuildButANonEmptyOneCannot() {
        java.util.UUID wanted = java.util.UUID.randomUUID();
        CatalogBinding.assignId(catalog, wanted);
        assertThat(catalog.durableId()).isEqualTo(wanted);
        catalog.createTopic(T, 1, Map.of());
        assertThatThrownBy(() -> CatalogBinding.assignId(catalog, java.util.UUID.randomUUID()))
                .isInstanceOf(CatalogException.class);
        assertThat(catalog.durableId()).isEqualTo(wanted);
    }

    @Test
    void aClosedCatalogRefusesCalls() {
        catalog.close();
        assertThatThrownBy(() -> catalog.topics()).hasMessageContaining("closed");
        assertThatThrownBy(() -> catalog.commit(obj(0, 1)))
                .isInstanceOf(CommitFailedException.class);
    }

    @Test
    void aFailureOfTheFinalCommitIsReportedAsUnknownOutcomeNotAsFailure() throws Exception {
        catalog.createTopic(T, 1, Map.of());
        catalog.commit(obj(0, 9));
        try (Connection c = rawConnection();
                Statement s = c.createStatement()) {
            for (String sql : commitTrapStatements()) {
                s.execute(sql);
            }
        }
        // The trap is a deferred constraint: statements succeed, the COMMIT itself fails.
        assertThatThrownBy(() -> catalog.commit(obj(10, 19)))
                .isInstanceOf(CommitStateUnknownException.class)
                .hasMessageContaining("unknown outcome");
        // The catalog reconnects and reports the truth on the next call.
        assertThat(catalog.partitionState(T, 0).coldHighWatermark()).isEqualTo(10);
    }

    @Test
    void twoProcessesCreatingTheSameTopicAtOnceBothGetTheOneTopic() throws Exception {
        try (Catalog other = openCatalog()) {
            for (int round = 0; round < 10; round++) {
                String name = "race-" + round;
                CyclicBarrier barrier = new CyclicBarrier(2);
                ExecutorService pool = Executors.newFixedThreadPool(2);
                try {
                    Future<TopicRecord> a =
                            pool.submit(
                                    () -> {
                                        barrier.await(30, TimeUnit.SECONDS);
                                        return catalog.createTopic(name, 2, Map.of());
                                    });
                    Future<TopicRecord> b =
                            pool.submit(
                                    () -> {
                                        barrier.await(30, TimeUnit.SECONDS);
                                        return other.createTopic(name, 2, Map.of());
                                    });
                    assertThat(a.get(60, TimeUnit.SECONDS).id())
                            .isEqualTo(b.get(60, TimeUnit.SECONDS).id());
                } finally {
                    pool.shutdownNow();
                }
            }
        }
    }

    @Test
    void twoCatalogsRacingForTheSameRangesProduceExactlyOneWinnerPerRange() throws Exception {
        catalog.createTopic(T, 1, Map.of());
        int rounds = 40;
        try (Catalog other = openCatalog()) {
            Catalog[] racers = {catalog, other};
            CyclicBarrier barrier = new CyclicBarrier(racers.length);
            ExecutorService pool = Executors.newFixedThreadPool(racers.length);
            try {
                List<Future<int[]>> results = new ArrayList<>();
                for (int r = 0; r < racers.length; r++) {
                    Catalog mine = racers[r];
                    String name = "racer" + r;
                    results.add(
                            pool.submit(
                                    () -> {
                                        int wins = 0;
                                        int conflicts = 0;
                                        for (int round = 0; round < rounds; round++) {
                                            long first = round * 10L;
                                            barrier.await(30, TimeUnit.SECONDS);
                                            try {
                                                mine.commit(
                                                        obj(
                                                                T,
                                                                0,
                                                                first,
                                                                first + 9,
                                                                name + "/" + round));
                                                wins++;
                                            } catch (CommitConflictException e) {
                                                assertThat(e.coldHighWatermark())
                                                        .isEqualTo(first + 10);
                                                conflicts++;
                                            }
                                        }
                                        return new int[] {wins, conflicts};
                                    }));
                }
                int wins = 0;
                int conflicts = 0;
                for (Future<int[]> f : results) {
                    int[] wc = f.get(120, TimeUnit.SECONDS);
                    wins += wc[0];
                    conflicts += wc[1];
                }
                assertThat(wins).isEqualTo(rounds);
                assertThat(conflicts).isEqualTo(rounds);
            } finally {
                pool.shutdownNow();
            }
        }
        List<ColdObject> objects = catalog.objects(T, 0);
        assertThat(objects).hasSize(rounds);
        for (int i = 0; i < rounds; i++) {
            assertThat(objects.get(i).firstOffset()).isEqualTo(i * 10L);
        }
    }

    @Test
    void writersThatResumeFromTheConflictWatermarkKeepThePartitionContiguous() throws Exception {
        catalog.createTopic(T, 1, Map.of());
        long target = 600;
        int threadsPerCatalog = 2;
        try (Catalog other = openCatalog()) {
            Catalog[] catalogs = {catalog, other};
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<Integer>> futures = new ArrayList<>();
                for (int i = 0; i < catalogs.length * threadsPerCatalog; i++) {
                    Catalog mine = catalogs[i % catalogs.length];
                    int id = i;
                    futures.add(
                            pool.submit(
                                    () -> {
                                        int wins = 0;
                                        long hw = mine.partitionState(T, 0).coldHighWatermark();
                                        int n = 0;
                                        while (hw < target) {
                                            long size = 1 + (id + n++) % 7;
                                            try {
                                                mine.commit(
                                                        obj(
                                                                T,
                                                                0,
                                                                hw,
                                                                hw + size - 1,
                                                                "w" + id + "/" + n));
                                                wins++;
                                                hw += size;
                                            } catch (CommitConflictException e) {
                                                hw = e.coldHighWatermark();
                                            }
                                        }
                                        return wins;
                                    }));
                }
                int wins = 0;
                for (Future<Integer> f : futures) {
                    wins += f.get(120, TimeUnit.SECONDS);
                }
                List<ColdObject> objects = catalog.objects(T, 0);
                assertThat(objects).hasSize(wins);
                long next = 0;
                for (ColdObject o : objects) {
                    assertThat(o.firstOffset()).isEqualTo(next);
                    next = o.nextOffset();
                }
                assertThat(next).isGreaterThanOrEqualTo(target);
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
