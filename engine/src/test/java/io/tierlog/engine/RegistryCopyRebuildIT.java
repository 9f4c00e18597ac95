package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.SchemaStore;
import io.tierlog.cold.ColdTierOptions;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.common.Config;
import io.tierlog.common.testing.Await;
import io.tierlog.registry.CatalogSchemaRegistry;
import io.tierlog.registry.SchemaReference;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.SubjectSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The schema registry survives a lost catalog as topics and objects do: every change is copied to
 * the bucket ({@link RegistryExporter}), {@code catalog rebuild} imports the copy with the exact
 * ids, versions, field ids, counters and settings, {@code verify} flags an entry the copy lacks,
 * and a change whose copy was never put (S3 down, or a process killed between the catalog commit
 * and the put) is copied by the next process to start. Real SQLite catalog, embedded S3 over HTTP.
 */
class RegistryCopyRebuildIT {
    static final String ADDRESS =
            "{\"type\":\"record\",\"name\":\"Address\",\"namespace\":\"com.acme\",\"fields\":"
                    + "[{\"name\":\"city\",\"type\":\"string\"}]}";
    static final String ORDER =
            "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"com.acme\",\"fields\":"
                    + "[{\"name\":\"id\",\"type\":\"long\"},"
                    + "{\"name\":\"to\",\"type\":\"com.acme.Address\"}]}";
    static final String ORDER_V2 =
            "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"com.acme\",\"fields\":"
                    + "[{\"name\":\"id\",\"type\":\"long\"},"
                    + "{\"name\":\"to\",\"type\":\"com.acme.Address\"},"
                    + "{\"name\":\"note\",\"type\":\"string\",\"default\":\"\"}]}";
    static final String JSON =
            "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"},"
                    + "\"s\":{\"type\":\"string\"}}}";
    static final String PROTO =
            "syntax = \"proto3\";\npackage acme;\nmessage Click {\n  string url = 1;\n"
                    + "  int64 at = 2;\n}\n";
    static final String GONE =
            "{\"type\":\"record\",\"name\":\"Gone\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]}";

    @TempDir Path dir;
    EngineFixture fx;
    Config config;

    @BeforeEach
    void setUp() throws Exception {
        fx = new EngineFixture(dir);
        config = fx.config(Map.of());
    }

    @AfterEach
    void tearDown() throws Exception {
        fx.close();
    }

    private String root() {
        return RegistryCopy.root(ColdTierOptions.from(config).prefix());
    }

    private void deleteCatalog() throws Exception {
        Path db = Path.of(fx.cold.catalogUrl().substring("jdbc:sqlite:".length()));
        for (String suffix : List.of("", "-wal", "-shm")) {
            Files.deleteIfExists(Path.of(db + suffix));
        }
    }

    private SchemaStore.Snapshot snapshot() {
        try (Catalog c = Catalog.open(fx.cold.catalogUrl())) {
            return c.schemas().snapshot();
        }
    }

    private List<Violation> verify() throws Exception {
        try (ReadOnlyTieredLog ro = ReadOnlyTieredLog.open(config)) {
            return ro.verify(false);
        }
    }

    /** Avro with a reference, JSON, Protobuf, a soft delete, a hard delete and settings. */
    private void registerAll(CatalogSchemaRegistry r) {
        r.register("address", SchemaType.AVRO, ADDRESS, List.of(), false);
        List<SchemaReference> refs = List.of(new SchemaReference("com.acme.Address", "address", 1));
        r.register("orders-value", SchemaType.AVRO, ORDER, refs, false);
        r.register("orders-value", SchemaType.AVRO, ORDER_V2, refs, false);
        r.register("json-value", SchemaType.JSON, JSON, List.of(), false);
        r.register("proto-value", SchemaType.PROTOBUF, PROTO, List.of(), false);
        r.deleteVersion("orders-value", "2", false); // soft
        r.register("gone-value", SchemaType.AVRO, GONE, List.of(), false);
        r.deleteSubject("gone-value", false);
        r.deleteSubject("gone-value", true); // hard: counters and the schema row stay
        r.putConfig("proto-value", "NONE", null);
        r.putConfig(null, "FULL", null);
    }

    @Test
    void aRebuiltCatalogHasTheSameIdsVersionsFieldIdsAndCountersAndNumbersOnAboveThem()
            throws Exception {
        try (TieredLog log = TieredLog.open(config)) {
            registerAll(log.schemaRegistry());
        }
        SchemaStore.Snapshot before = snapshot();
        assertThat(before.schemas()).hasSize(6);
        assertThat(before.versions()).anyMatch(SchemaStore.Version::deleted);
        assertThat(before.counters())
                .extracting(SchemaStore.Counters::subject)
                .contains("gone-value");
        assertThat(verify()).as("every change was copied when it was made").isEmpty();

        deleteCatalog();
        List<String> out = CatalogRebuild.run(config, false, false);

        assertThat(out)
                .anyMatch(l -> l.startsWith("schema registry copy: 6 schemas (highest id 6)"))
                .anyMatch(l -> l.startsWith("schema registry imported: 6 schemas"));
        assertThat(snapshot()).isEqualTo(before);
        assertThat(verify()).isEmpty();
        try (TieredLog log = TieredLog.open(config)) {
            CatalogSchemaRegistry r = log.schemaRegistry();
            SubjectSchema fresh =
                    r.register(
                            "fresh-value",
                            SchemaType.AVRO,
                            "{\"type\":\"record\",\"name\":\"F\",\"fields\":[]}",
                            List.of(),
                            false);
            assertThat(fresh.id()).as("above every id ever handed out").isEqualTo(7);
            SubjectSchema again = r.register("gone-value", SchemaType.AVRO, GONE, List.of(), false);
            assertThat(again.id()).as("the hard-deleted schema keeps its id").isEqualTo(6);
            assertThat(again.version().version())
                    .as("a hard-deleted subject's versions are never reused")
                    .isEqualTo(2);
            SubjectSchema v3 =
                    r.register(
                            "orders-value",
                            SchemaType.AVRO,
                            ORDER_V2,
                            List.of(new SchemaReference("com.acme.Address", "address", 1)),
                            false);
            assertThat(v3.version().version()).as("above the soft-deleted version 2").isEqualTo(3);
            assertThat(v3.version().fieldIds())
                    .as("field ids continue as before the loss")
                    .isEqualTo(
                            before.versions().stream()
                                    .filter(v -> v.subject().equals("orders-value"))
                                    .filter(v -> v.version() == 2)
                                    .findFirst()
                                    .orElseThrow()
                                    .fieldIds());
        }
    }

    @Test
    void aDamagedCopyDocumentIsSkippedWithANoteAndTheRestIsImported() throws Exception {
        try (TieredLog log = TieredLog.open(config)) {
            registerAll(log.schemaRegistry());
        }
        String json = RegistryCopy.scopeKey(root(), "json-value");
        fx.cold.store().put(json, "{\"scope\": 17".getBytes(StandardCharsets.UTF_8));
        SchemaStore.Snapshot before = snapshot();

        deleteCatalog();
        List<String> out = CatalogRebuild.run(config, false, false);

        assertThat(out)
                .anyMatch(l -> l.startsWith("skipped unreadable schema registry document " + json));
        SchemaStore.Snapshot after = snapshot();
        assertThat(after.schemas()).isEqualTo(before.schemas());
        assertThat(after.versions())
                .containsExactlyElementsOf(
                        before.versions().stream()
                                .filter(v -> !v.subject().equals("json-value"))
                                .toList());
        assertThat(verify()).as("the copy now matches the catalog as rebuilt").isEmpty();
    }

    @Test
    void aChangeCommittedButNeverCopiedIsFlaggedByVerifyAndCopiedByTheNextStart() throws Exception {
        try (TieredLog log = TieredLog.open(config)) {
            registerAll(log.schemaRegistry());
        }
        // a process killed between the catalog commit and its put: the commit, without the copy
        try (Catalog c = Catalog.open(fx.cold.catalogUrl())) {
            CatalogSchemaRegistry.open(c)
                    .register("late-value", SchemaType.JSON, JSON, List.of(), false);
        }
        // and one whose put failed: S3 down while the registration commits
        try (TieredLog log = TieredLog.open(config)) {
            Await.until(
                    "the startup pass copied late-value",
                    () -> keys().contains(RegistryCopy.scopeKey(root(), "late-value")),
                    Duration.ofSeconds(30));
            fx.stopS3();
            SubjectSchema s =
                    log.schemaRegistry()
                            .register(
                                    "down-value",
                                    SchemaType.PROTOBUF,
                                    PROTO.replace("Click", "Tap"),
                                    List.of(),
                                    false);
            assertThat(s.id()).as("late-value reuses the id of the same JSON schema").isEqualTo(7);
            fx.startS3();
        }
        assertThat(verify())
                .extracting(Violation::kind, Violation::message)
                .anySatisfy(
                        t -> {
                            assertThat(t.toList().get(0))
                                    .isEqualTo(Violation.Kind.REGISTRY_NOT_IN_BUCKET);
                            assertThat((String) t.toList().get(1))
                                    .contains(RegistryCopy.schemaKey(root(), 7));
                        });

        try (TieredLog log = TieredLog.open(config)) {
            Await.until(
                    "the startup pass copied down-value",
                    () -> keys().contains(RegistryCopy.scopeKey(root(), "down-value")),
                    Duration.ofSeconds(30));
        }
        assertThat(verify()).isEmpty();
        SchemaStore.Snapshot before = snapshot();
        deleteCatalog();
        CatalogRebuild.run(config, false, false);
        assertThat(snapshot()).isEqualTo(before);
    }

    private List<String> keys() throws Exception {
        return fx.cold.store().list(root()).stream().map(ObjectInfo::key).toList();
    }
}
