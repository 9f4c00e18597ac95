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
        // an object of a topic the catalog does not know (deleted): an orphan, not pinned
        assertThat(tables.pinned(o.key().replace("events/", "gone/"))).isFalse();
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
    void aForeignSchemaChangeWithoutASnapshotIsDriftAndPausesRegistration(String kind)
            throws Exception {
        fixture(kind);
        fx.catalog.createTopic("events", 1, Map.of());
        fx.append("events", 0, 4);
        IcebergTopicTables tables = open();
        tables.sync("events");
        Table t = table("events");
        assertThat(t.properties())
                .containsEntry("tierlog.schema.id", Integer.toString(t.schema().schemaId()));
        long before = t.currentSnapshot().snapshotId();
        // what Spark's ALTER TABLE ADD COLUMN does: a metadata-only commit, fresh field ids
        t.updateSchema()
                .addColumn("note", org.apache.iceberg.types.Types.StringType.get())
                .commit();
        fx.append("events", 0, 4);
        assertThatThrownBy(() -> tables.sync("events"))
                .isInstanceOf(TableException.class)
                .hasMessageContaining("drift")
                .hasMessageContaining("schema");
        assertThat(tables.state("events").orElseThrow().drift()).isPresent();
        assertThat(tables.audit("events").drift()).isPresent();
        t.refresh();
        assertThat(t.currentSnapshot().snapshotId()).isEqualTo(before); // nothing registered

        // a fresh registrar (a restart) sees it too
        IcebergTopicTables restarted = open();
        assertThatThrownBy(() -> restarted.sync("events")).hasMessageContaining("drift");
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc", "rest"})
    void aFileRegisteredTwiceIsRepairedByTheNextRoundToOneEntry(String kind) throws Exception {
        fixture(kind);
        fx.catalog.createTopic("events", 2, Map.of());
        ColdObject o = fx.append("events", 0, 4);
        fx.append("events", 1, 3);
        IcebergTopicTables tables = open();
        tables.sync("events");
        Table t = table("events");
        DataFile again = null;
        for (var task : t.newScan().planFiles()) {
            if (task.file().location().endsWith(o.key())) {
                again = DataFiles.builder(t.spec()).copy(task.file()).build();
            }
        }
        // what an older registrar's duplicate append left behind: a tierlog snapshot, no drift
        t.newFastAppend()
                .appendFile(again)
                .set("tierlog.writer", fx.catalog.id().toString())
                .commit();
        assertThat(tables.audit("events").duplicates()).containsExactly(o.key());
        fx.append("events", 1, 2);

        SyncResult r = tables.sync("events");
        assertThat(r.committed()).isTrue();
        assertThat(tables.audit("events")).matches(TableAudit::clean, "clean");
        assertExactlyCatalog(t, "events", 2);
        assertThat(t.currentSnapshot().summary()).containsEntry("tierlog.op", "repair");
        assertThat(tables.state("events").orElseThrow().drift()).isEmpty();
        assertThat(tables.sync("events").committed()).isFalse(); // converged
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

    @ParameterizedTest
    @ValueSource(strings = {"jdbc", "rest"})
    void droppingATableChecksTheTopicIdAndUnpinsItsObjects(String kind) throws Exception {
        fixture(kind);
        var rec = fx.catalog.createTopic("events", 1, Map.of());
        ColdObject o = fx.append("events", 0, 4);
        IcebergTopicTables tables = open();
        tables.sync("events");
        Table t = table("events");
        String metadataKey =
                new ObjectStoreFileIO(fx.store, fx.s3.bucket()).key(t.location()) + "/metadata/";
        assertThat(fx.store.list(metadataKey)).isNotEmpty();
        tables.dropTable("events", java.util.UUID.randomUUID()); // another topic's id: left alone
        assertThat(tables.audit("events").clean()).isTrue();
        assertThat(tables.pinned(o.key())).isTrue();

        tables.dropTable("events", rec.id());
        tables.dropTable("events", rec.id()); // idempotent
        assertThat(tables.pinned(o.key())).isFalse();
        assertThat(fx.store.list(metadataKey)).isEmpty();
        assertThat(tables.sync("events").committed()).isFalse(); // the topic is being deleted
        assertThat(tables.audit("events").missing()).containsExactly(o.key());
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc", "rest"})
    void keepingTheTableOnTopicDeleteRenamesItAndKeepsItsObjectsPinned(String kind)
            throws Exception {
        fixture(kind);
        fx.topicSettings.put("iceberg.drop.table.on.topic.delete", "false");
        var rec = fx.catalog.createTopic("events", 1, Map.of());
        ColdObject o = fx.append("events", 0, 4);
        try (IcebergTopicTables writer = fx.open()) {
            writer.sync("events");
        }
        IcebergTopicTables tables = open(); // a fresh registrar that has not read the table yet
        tables.dropTable("events", rec.id());
        String hex = rec.id().toString().replace("-", "").substring(0, 8);
        Table renamed = table("events__deleted_" + hex);
        assertThat(renamed.properties()).containsEntry("tierlog.owner", "released");
        assertThat(livePaths(renamed)).hasSize(1);
        assertThat(tables.pinned(o.key())).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc", "rest"})
    void aReleasedTablesFilesStayPinnedAfterARestartWhileADroppedTopicsOrphansDoNot(String kind)
            throws Exception {
        fixture(kind);
        fx.topicSettings.put("iceberg.drop.table.on.topic.delete", "false");
        var rec = fx.catalog.createTopic("events", 1, Map.of());
        ColdObject kept = fx.append("events", 0, 4);
        ColdObject kept2 = fx.append("events", 0, 3);
        try (IcebergTopicTables writer = fx.open()) {
            writer.sync("events");
            writer.dropTable("events", rec.id());
        }
        fx.catalog.deleteTopic("events");
        ColdObject orphan = fx.write("gone", 0, 0, 2); // a topic unknown to both catalogs
        try (IcebergTopicTables restarted = fx.open()) {
            assertThat(restarted.pinned(kept.key())).isTrue();
            assertThat(restarted.pinned(kept2.key())).isTrue();
            assertThat(restarted.pinned(orphan.key())).isFalse();
        }
    }

    @org.junit.jupiter.api.Test
    void untilTheReleasedTablesAreListedObjectsOfUnknownTopicsStayPinned() throws Exception {
        fixture("rest");
        ColdObject orphan = fx.write("gone", 0, 0, 2); // maybe a released table's file
        fx.rest.close(); // the listing cannot succeed
        IcebergTopicTables tables = open();
        assertThat(tables.pinned(orphan.key())).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc", "rest"})
    void aTypedObjectEvolvesTheSchemaWithItsOwnIdsAndOldRowsReadAsNull(String kind)
            throws Exception {
        fixture(kind);
        fx.catalog.createTopic("orders", 1, Map.of());
        fx.append("orders", 0, 5);
        IcebergTopicTables tables = open();
        tables.sync("orders");
        Table t = table("orders");
        assertThat(t.schema().findField("value_record")).isNull();
        fx.appendTyped("orders", 0, 6);
        tables.sync("orders");
        t.refresh();
        var vr = t.schema().findField("value_record");
        assertThat(vr.fieldId()).isEqualTo(24);
        assertThat(vr.isOptional()).isTrue();
        assertThat(t.schema().findField("value_record.name").fieldId()).isEqualTo(1_000_001);
        assertThat(t.schema().findField("value_rebuilt").isOptional()).isTrue();
        assertThat(t.schema().findField("partition_id").fieldId()).isEqualTo(500);
        int typed = 0;
        int rows = 0;
        try (CloseableIterable<Record> it = IcebergGenerics.read(t).build()) {
            for (Record r : it) {
                rows++;
                if (r.getField("value_record") != null) {
                    typed++;
                }
            }
        }
        assertThat(rows).isEqualTo(11);
        assertThat(typed).isBetween(1, 6);
        assertExactlyCatalog(t, "orders", 1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc"})
    void anObjectWhoseSchemaCannotJoinTheTableIsRefusedAndReported(String kind) throws Exception {
        fixture(kind);
        fx.catalog.createTopic("orders", 1, Map.of());
        fx.append("orders", 0, 5);
        // the same toy typer for keys and values: field id 1000001 twice in one file
        ColdObject bad =
                fx.appendTyped(
                        "orders",
                        0,
                        3,
                        new io.tierlog.cold.TypedColumns(
                                new io.tierlog.cold.testing.ToyTyper(),
                                new io.tierlog.cold.testing.ToyTyper(),
                                false));
        IcebergTopicTables tables = open();
        tables.sync("orders");
        TableState state = tables.state("orders").orElseThrow();
        assertThat(state.files()).isEqualTo(1);
        assertThat(state.lastError()).hasValueSatisfying(e -> assertThat(e).contains(bad.key()));
        assertThat(tables.audit("orders").missing()).containsExactly(bad.key());
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc", "rest"})
    void snapshotExpiryKeepsTheCurrentSnapshotAndEveryDataFile(String kind) throws Exception {
        fixture(kind);
        fx.topicSettings.put("iceberg.snapshot.retention.ms", "1");
        fx.catalog.createTopic("events", 1, Map.of());
        IcebergTopicTables tables = open();
        for (int i = 0; i < 4; i++) {
            fx.append("events", 0, 3);
            tables.sync("events");
            Thread.sleep(5); // let the 1 ms retention pass on the wall clock
        }
        Table t = table("events");
        int snapshots = 0;
        for (Snapshot s : t.snapshots()) {
            snapshots++;
        }
        assertThat(snapshots).isLessThan(4);
        assertExactlyCatalog(t, "events", 1);
        for (ColdObject o : fx.catalog.objects("events", 0)) {
            assertThat(fx.store.head(o.key()).size()).isEqualTo(o.sizeInBytes());
        }
        int rows = 0;
        try (CloseableIterable<Record> it = IcebergGenerics.read(t).build()) {
            for (Record r : it) {
                rows++;
            }
        }
        assertThat(rows).isEqualTo(12);
    }

    @ParameterizedTest
    @ValueSource(strings = {"rest"})
    void aCatalogThatIsDownCostsOnlyFreshnessAndIsReportedAndRetried(String kind) throws Exception {
        fixture(kind);
        fx.catalog.createTopic("events", 1, Map.of());
        fx.append("events", 0, 3);
        IcebergTopicTables tables = fx.openBackground();
        closing.add(tables);
        Await.until(
                "first registration",
                () -> tables.state("events").map(st -> st.files() == 1).orElse(false),
                Duration.ofSeconds(30));
        fx.rest.close();
        fx.append("events", 0, 3);
        tables.onCommitted("events", 0); // never throws
        Await.until(
                "the failure reported",
                () -> tables.state("events").orElseThrow().lastError().isPresent(),
                Duration.ofSeconds(30));
        assertThatThrownBy(() -> tables.sync("events")).isInstanceOf(TableException.class);
        assertThat(tables.audit("events").checked()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc", "rest"})
    void aStaleRetentionCommitConvergesWithTheFilesRemovedOnce(String kind) throws Exception {
        fixture(kind);
        fx.catalog.createTopic("events", 1, Map.of());
        List<ColdObject> objs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            objs.add(fx.append("events", 0, 4));
        }
        IcebergTopicTables a = open();
        IcebergTopicTables b = open();
        a.sync("events");
        b.sync("events");
        fx.catalog.removeObjectsBelow("events", 0, objs.get(2).firstOffset());
        AtomicBoolean once = new AtomicBoolean();
        b.setHooks(
                new CommitHooks() {
                    @Override
                    void beforeCommit(String topic) {
                        if (once.compareAndSet(false, true)) {
                            a.sync(topic); // a removes the same files first
                        }
                    }
                });
        b.sync("events");
        assertThat(once).isTrue();
        Table t = table("events");
        assertExactlyCatalog(t, "events", 1);
        assertThat(b.audit("events").clean()).isTrue();
        assertThat(b.sync("events").committed()).isFalse();
        int retention = 0;
        for (Snapshot s : t.snapshots()) {
            retention += "retention".equals(s.summary().get("tierlog.op")) ? 1 : 0;
        }
        assertThat(retention).as("b's stale delete was refused, not committed").isEqualTo(1);
    }
}
