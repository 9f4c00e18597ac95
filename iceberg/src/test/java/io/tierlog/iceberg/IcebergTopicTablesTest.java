package io.tierlog.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.catalog.ColdObject;
import io.tierlog.common.testing.Await;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The registrar against real parts (s3proxy, SQLite, JdbcCatalog or a REST catalog server). */
class IcebergTopicTablesTest {
    @TempDir Path dir;
    private TablesFixture fx;
    private final List<AutoCloseable> closing = new ArrayList<>();

    private TablesFixture fixture(String kind) throws IOException {
        fx = new TablesFixture(dir, kind);
        return fx;
    }

    private IcebergTopicTables open() {
        IcebergTopicTables t = fx.open();
        closing.add(t);
        return t;
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        if (fx != null) {
            fx.close();
        }
    }

    /** A client of the same Iceberg catalog, to read what the registrar wrote. */
    private Table table(String topic) {
        TableCatalog c =
                TableCatalogs.open(
                        fx.setup(), new ObjectStoreFileIO(fx.store, fx.s3.bucket()), false);
        closing.add(c);
        return c.catalog().loadTable(TableIdentifier.of("tierlog", topic));
    }

    private static Map<String, Integer> livePaths(Table t) throws IOException {
        Map<String, Integer> n = new HashMap<>();
        try (var tasks = t.newScan().planFiles()) {
            tasks.forEach(task -> n.merge(task.file().location(), 1, Integer::sum));
        }
        return n;
    }

    private List<String> catalogKeys(String topic, int partitions) {
        List<String> keys = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            fx.catalog.objects(topic, p).forEach(o -> keys.add(o.key()));
        }
        return keys;
    }

    private void assertExactlyCatalog(Table t, String topic, int partitions) throws IOException {
        t.refresh();
        Map<String, Integer> live = livePaths(t);
        assertThat(live.values()).allMatch(c -> c == 1);
        List<String> want = new ArrayList<>();
        for (String k : catalogKeys(topic, partitions)) {
            want.add("s3://" + fx.s3.bucket() + "/" + k);
        }
        assertThat(live.keySet()).containsExactlyInAnyOrderElementsOf(want);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc", "rest"})
    void objectsOfTheRealWriterAreRegisteredOnceWithTheirFieldIdsAndReadBackByIcebergGenerics(
            String kind) throws Exception {
        fixture(kind);
        fx.catalog.createTopic("events", 2, Map.of());
        for (int i = 0; i < 3; i++) {
            fx.append("events", 0, 5 + i);
            fx.append("events", 1, 7);
        }
        IcebergTopicTables tables = fx.openBackground();
        closing.add(tables);
        List<Long> registered = new ArrayList<>();
        tables.addListener((topic, p, next, at) -> registered.add(next));
        tables.sync("events"); // the background thread may have registered them first
        assertThat(tables.sync("events").committed()).isFalse();

        Table t = table("events");
        assertExactlyCatalog(t, "events", 2);
        assertThat(t.schema().findField("offset").fieldId()).isEqualTo(1);
        assertThat(t.schema().findField("timestamp").fieldId()).isEqualTo(2);
        assertThat(t.schema().findField("batch_last_offset").fieldId()).isEqualTo(21);
        assertThat(t.schema().findField("partition_id").fieldId()).isEqualTo(500);
        assertThat(t.spec().fields()).hasSize(1);
        assertThat(t.properties()).containsEntry("tierlog.owner", "tierlog");
        Snapshot s = t.currentSnapshot();
        assertThat(s.summary())
                .containsEntry("tierlog.writer", fx.catalog.id().toString())
                .containsKey("tierlog.commit")
                .containsEntry("tierlog.ranges", "0:0-18,1:0-21");

        Map<String, Integer> seen = new HashMap<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(t).build()) {
            for (Record row : rows) {
                seen.merge(
                        row.getField("partition_id") + ":" + row.getField("offset"),
                        1,
                        Integer::sum);
            }
        }
        assertThat(seen).hasSize(18 + 21);
        assertThat(seen.values()).allMatch(c -> c == 1);
        assertThat(seen).containsKeys("0:0", "0:17", "1:0", "1:20");

        TableState state = tables.state("events").orElseThrow();
        assertThat(state.files()).isEqualTo(6);
        assertThat(state.partitions().get(0).nextOffset()).isEqualTo(18);
        assertThat(state.partitions().get(0).unregisteredOffsets()).isZero();
        assertThat(registered).contains(18L, 21L);
        assertThat(tables.audit("events").clean()).isTrue();

        // the background thread registers a new object after onCommitted
        ColdObject o = fx.append("events", 1, 3);
        tables.onCommitted("events", 1);
        Await.until(
                "registered " + o.key(),
                () -> tables.state("events").orElseThrow().partitions().get(1).nextOffset() == 24,
                Duration.ofSeconds(30));
        assertExactlyCatalog(t, "events", 2);
        assertThat(tables.pinned(o.key())).isTrue();
        assertThat(tables.pinned("events/0/" + "x")).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc", "rest"})
    void aStaleSecondRegistrarIsRefusedAndConvergesWithoutDuplicate(String kind) throws Exception {
        fixture(kind);
        fx.catalog.createTopic("events", 1, Map.of());
        fx.append("events", 0, 4);
        IcebergTopicTables a = open();
        IcebergTopicTables b = open();
        a.sync("events");
        b.sync("events");
        fx.append("events", 0, 4);
        AtomicBoolean once = new AtomicBoolean();
        b.setHooks(
                new CommitHooks() {
                    @Override
                    void beforeCommit(String topic) {
                        if (once.compareAndSet(false, true)) {
                            a.sync(topic); // a commits the same object between b's diff and commit
                        }
                    }
                });
        SyncResult r = b.sync("events");
        assertThat(once).isTrue();
        assertThat(r.committed()).isFalse();
        Table t = table("events");
        assertExactlyCatalog(t, "events", 1);
        assertThat(b.audit("events").clean()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc", "rest"})
    void anUnknownCommitOutcomeIsResolvedByTheCommitToken(String kind) throws Exception {
        fixture(kind);
        fx.catalog.createTopic("events", 1, Map.of());
        fx.append("events", 0, 4);
        IcebergTopicTables tables = open();
        tables.sync("events");
        fx.append("events", 0, 4);
        AtomicBoolean once = new AtomicBoolean();
        tables.setHooks(
                new CommitHooks() {
                    @Override
                    void afterCommit(String topic) {
                        if (once.compareAndSet(false, true)) {
                            throw new CommitStateUnknownException(
                                    new RuntimeException("lost reply"));
                        }
                    }
                });
        SyncResult r = tables.sync("events");
        assertThat(r.committed()).isTrue();
        assertThat(r.added()).isEqualTo(1);
        Table t = table("events");
        assertExactlyCatalog(t, "events", 1);
        int snapshots = 0;
        for (Snapshot s : t.snapshots()) {
            snapshots++;
        }
        assertThat(snapshots).isEqualTo(2);
        assertThat(tables.sync("events").committed()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc", "rest"})
    void retentionRemovesWholeFilesAndAMergeBecomesAReplaceSnapshot(String kind) throws Exception {
        fixture(kind);
        fx.catalog.createTopic("events", 1, Map.of());
        List<ColdObject> objs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            objs.add(fx.append("events", 0, 4));
        }
        IcebergTopicTables tables = open();
        tables.sync("events");
        fx.catalog.removeObjectsBelow("events", 0, objs.get(2).firstOffset());
        SyncResult r = tables.sync("events");
        assertThat(r.removed()).isEqualTo(2);
        Table t = table("events");
        assertExactlyCatalog(t, "events", 1);
        assertThat(t.currentSnapshot().summary()).containsEntry("tierlog.op", "retention");
        assertThat(tables.pinned(objs.get(0).key())).isFalse();
        assertThat(tables.pinned(objs.get(2).key())).isTrue();

        // merge objects 2..4 (12 records, offsets 8..19) into one
        ColdObject merged = fx.write("events", 0, objs.get(2).firstOffset(), 12);
        fx.catalog.replaceObjects(
                "events",
                0,
                List.of(objs.get(2).key(), objs.get(3).key(), objs.get(4).key()),
                merged,
                0,
                System.currentTimeMillis());
        r = tables.sync("events");
        assertThat(r.added()).isEqualTo(1);
        assertThat(r.removed()).isEqualTo(3);
        t.refresh();
        assertThat(t.currentSnapshot().operation()).isEqualTo("replace");
        assertThat(t.currentSnapshot().summary()).containsEntry("tierlog.op", "replace");
        assertExactlyCatalog(t, "events", 1);
        assertThat(tables.audit("events").clean()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc", "rest"})
    void aForeignAppendIsDriftAndPausesRegistration(String kind) throws Exception {
        fixture(kind);
        fx.catalog.createTopic("events", 1, Map.of());
        ColdObject first = fx.append("events", 0, 4);
        IcebergTopicTables tables = open();
        tables.sync("events");
        Table t = table("events");
        DataFile copy =
                DataFiles.builder(t.spec())
                        .copy(t.currentSnapshot().addedDataFiles(t.io()).iterator().next())
                        .withPath("s3://" + fx.s3.bucket() + "/spark/copy.parquet")
                        .build();
        t.newAppend().appendFile(copy).commit();
        fx.append("events", 0, 4);
        assertThatThrownBy(() -> tables.sync("events"))
                .isInstanceOf(TableException.class)
                .hasMessageContaining("drift");
        assertThat(tables.state("events").orElseThrow().drift()).isPresent();
        TableAudit audit = tables.audit("events");
        assertThat(audit.drift()).isPresent();
        assertThat(audit.extra()).containsExactly("spark/copy.parquet");
        assertThat(audit.missing()).hasSize(1);
        assertThat(tables.pinned(first.key())).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc", "rest"})
    void aBackfillOfExistingObjectsCommitsInBatches(String kind) throws Exception {
        fixture(kind);
        fx.catalog.createTopic("events", 2, Map.of());
        for (int i = 0; i < 13; i++) {
            fx.append("events", i % 2, 2);
        }
        IcebergTopicTables driven = open();
        driven.setBatchLimit(5);
        SyncResult r = driven.sync("events");
        assertThat(r.added()).isEqualTo(13);
        Table t = table("events");
        assertExactlyCatalog(t, "events", 2);
        List<String> ops = new ArrayList<>();
        for (Snapshot s : t.snapshots()) {
            ops.add(s.summary().get("tierlog.op"));
        }
        assertThat(ops).containsExactly("backfill", "backfill", "backfill");
    }
}
