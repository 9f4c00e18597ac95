package io.tierlog.engine;

import static io.tierlog.engine.EngineFixture.TP;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.CatalogBinding;
import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ObjectKeys;
import io.tierlog.common.Config;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code verify} finds past the catalog: the normal leftovers of offloading are notes, not
 * violations; a catalog that is not the data dir's is a violation.
 */
class CatalogAuditIT {
    private static final long BASE_TS = 1_700_000_000_000L;

    @TempDir Path dir;
    EngineFixture fx;
    Config config;
    List<ColdObject> objects;

    @BeforeEach
    void setUp() throws Exception {
        fx = new EngineFixture(dir);
        config = fx.config(Map.of("offload.target.object.bytes", "8192"));
        try (TieredLog log = TieredLog.open(config)) {
            log.createTopic(TP.topic(), 1, Map.of());
            EngineFixture.appendRecords(log, TP, 150, 10, BASE_TS);
            log.maintain();
            objects = log.catalog().objects(TP.topic(), 0);
            assertThat(objects.size()).isGreaterThan(2);
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        fx.close();
    }

    private void sql(String statement) throws Exception {
        try (Connection c = DriverManager.getConnection(fx.cold.catalogUrl());
                Statement s = c.createStatement()) {
            s.executeUpdate(statement);
        }
    }

    @Test
    void duplicateOrphansUncommittedUploadsAndUnreadableObjectsAreNotesNotViolations()
            throws Exception {
        io.tierlog.cold.ObjectStore store = fx.cold.store();
        ColdObject first = objects.get(0);
        ColdObject last = objects.get(objects.size() - 1);
        try (ReadOnlyTieredLog ro = ReadOnlyTieredLog.open(config)) {
            assertThat(ro.verify(false)).isEmpty();
            assertThat(ro.notes()).isEmpty();
        }
        // An orphan of a retried upload: same offsets as a committed object, another key.
        ByteBuffer bytes = store.get(first.key());
        byte[] copy = new byte[bytes.remaining()];
        bytes.get(copy);
        String duplicate =
                ObjectKeys.newKey("", TP.topic(), 0, first.firstOffset(), first.lastOffset());
        store.put(duplicate, copy);
        // Garbage under a well-formed key.
        String garbage = ObjectKeys.newKey("", TP.topic(), 0, 5000, 5009);
        store.put(garbage, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
        // The last commit undone: uploaded, not committed, the hot tier still has the offsets.
        sql("DELETE FROM cold_objects WHERE object_key = '" + last.key() + "'");
        sql("UPDATE partitions SET cold_hw = " + last.firstOffset());

        try (ReadOnlyTieredLog ro = ReadOnlyTieredLog.open(config)) {
            // the topic's Iceberg table registered the object before its commit was undone: the
            // table is ahead of the catalog, which verify reports (the next round drops the file)
            assertThat(ro.verify(false))
                    .singleElement()
                    .satisfies(
                            v -> {
                                assertThat(v.kind())
                                        .isEqualTo(Violation.Kind.ICEBERG_TABLE_EXTRA_FILE);
                                assertThat(v.message()).contains(last.key());
                            });
            assertThat(ro.notes())
                    .anyMatch(n -> n.contains(duplicate) && n.contains("duplicates committed"))
                    .anyMatch(n -> n.contains(last.key()) && n.contains("not committed yet"))
                    .anyMatch(n -> n.contains(garbage) && n.contains("unreadable"));
        }
    }

    @Test
    void catalogOfAnotherDataDirIsAViolation() throws Exception {
        CatalogBinding.write(dir.resolve("data"), UUID.randomUUID());
        try (ReadOnlyTieredLog ro = ReadOnlyTieredLog.open(config)) {
            assertThat(ro.verify(false))
                    .extracting(Violation::kind)
                    .containsExactly(Violation.Kind.CATALOG_NOT_OWN);
        }
    }
}
