package io.tierlog.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.benmanes.caffeine.cache.Ticker;
import io.tierlog.catalog.Catalog;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registry's own rules (numbering, field ids, deletes, settings, caches) over a real SQLite
 * catalog, with a toy format ({@link WordFormats}) so that what is tested is the registry, not a
 * format's rules (those are tested by the formats' own tests, and through the REST API with real
 * formats).
 */
class CatalogSchemaRegistryTest {
    @TempDir Path dir;
    Catalog catalog;
    CatalogSchemaRegistry registry;
    final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    final Ticker ticker = nanos::get;

    @BeforeEach
    void open() {
        catalog = Catalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"));
        registry = new CatalogSchemaRegistry(catalog.schemas(), new WordFormats(), ticker);
    }

    @AfterEach
    void close() {
        registry.close();
        catalog.close();
    }

    SubjectSchema register(String subject, String text) {
        return registry.register(subject, SchemaType.AVRO, text, List.of(), false);
    }

    static int code(Throwable t) {
        return ((SchemaRegistryException) t).errorCode();
    }

    @Test
    void idsAreGlobalFromOneAndOneSchemaHasOneIdInEverySubject() {
        SubjectSchema a = register("orders-value", "id amount");
        SubjectSchema b = register("payments-value", "  id   amount ");
        SubjectSchema c = register("payments-value", "id amount currency");
        assertThat(a.id()).isEqualTo(1);
        assertThat(b.id()).as("same canonical form in another subject").isEqualTo(1);
        assertThat(b.version().version()).isEqualTo(1);
        assertThat(c.id()).isEqualTo(2);
        assertThat(c.version().version()).isEqualTo(2);
        assertThat(registry.schema(1).orElseThrow().text()).isEqualTo("id amount");
        assertThat(registry.subjects("", false)).containsExactly("orders-value", "payments-value");
        assertThat(registry.versionsOfSchema(1, false))
                .extracting(SubjectVersion::subject)
                .containsExactly("orders-value", "payments-value");
    }

    @Test
    void registeringTheSameSchemaAgainReturnsTheExistingVersionAndWritesNothing() {
        SubjectSchema first = register("s", "a b");
        register("s", "a b c");
        SubjectSchema again = register("s", "a   b");
        assertThat(again.version().version()).isEqualTo(1);
        assertThat(again.id()).isEqualTo(first.id());
        assertThat(registry.versionNumbers("s", true)).containsExactly(1, 2);
    }

    @Test
    void versionsAndIdsAreNeverReusedAfterPermanentDeletes() {
        register("s", "a");
        register("s", "a b");
        assertThat(registry.deleteVersion("s", "2", false)).isEqualTo(2);
        assertThat(registry.deleteVersion("s", "2", true)).isEqualTo(2);
        SubjectSchema next = register("s", "a c");
        assertThat(next.version().version()).as("version 2 is gone, not free").isEqualTo(3);
        assertThat(next.id()).as("id 2 is gone, not free").isEqualTo(3);
        registry.deleteSubject("s", false);
        registry.deleteSubject("s", true);
        assertThatThrownBy(() -> registry.versionNumbers("s", true))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCodes.SUBJECT_NOT_FOUND));
        SubjectSchema reborn = register("s", "x");
        assertThat(reborn.version().version()).isEqualTo(4);
        assertThat(reborn.id()).isEqualTo(4);
        assertThat(registry.maxSchemaId()).isEqualTo(4);
    }

    @Test
    void aHardDeletedSchemaIsGoneFromTheApiButItsTextStaysForRebuildingValues() {
        SubjectSchema v = register("s", "a b");
        registry.deleteSubject("s", false);
        registry.deleteSubject("s", true);
        assertThatThrownBy(() -> registry.schemaById(v.id()))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCodes.SCHEMA_NOT_FOUND));
        assertThat(registry.schema(v.id())).isPresent();
        assertThat(registry.registeredUnder("s", v.id())).isFalse();
    }

    @Test
    void fieldIdsAreStablePerSubjectAndAReAddedFieldGetsANewOne() {
        registry.putConfig("s", "NONE", null);
        Map<String, Integer> v1 = register("s", "a b").version().fieldIds();
        Map<String, Integer> v2 = register("s", "a c").version().fieldIds();
        Map<String, Integer> v3 = register("s", "a b c").version().fieldIds();
        assertThat(v1).isEqualTo(Map.of("a", 1, "b", 2));
        assertThat(v2).as("c is new").isEqualTo(Map.of("a", 1, "c", 3));
        assertThat(v3).as("b was absent in v2: a new id").isEqualTo(Map.of("a", 1, "b", 4, "c", 3));
        assertThat(registry.versions("s", false).get(2).fieldIds()).isEqualTo(v3);
        // the counter survives a permanent delete of the whole subject
        registry.deleteSubject("s", false);
        registry.deleteSubject("s", true);
        assertThat(register("s", "z").version().fieldIds()).isEqualTo(Map.of("z", 5));
    }

    @Test
    void anIncompatibleSchemaIsRefusedWith409NamingTheRuleAndNoneAllowsIt() {
        register("s", "a b");
        assertThatThrownBy(() -> register("s", "a"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCodes.INCOMPATIBLE_SCHEMA))
                .hasMessageContaining("dropped field b")
                .hasMessageContaining("BACKWARD");
        assertThat(registry.versionNumbers("s", false)).containsExactly(1);
        registry.putConfig("s", "none", null);
        assertThat(register("s", "a").version().version()).isEqualTo(2);
    }

    @Test
    void transitiveLevelsCheckEveryVersionAndOthersOnlyTheLatest() {
        registry.putConfig(null, "FORWARD", null);
        register("s", "a b c");
        register("s", "a b");
        // FORWARD: c was in v1, not in v2: only the latest counts, so adding it back is "added"
        assertThat(
                        registry.testCompatibility(
                                "s", null, SchemaType.AVRO, "a b c", List.of(), false))
                .containsExactly("added field c");
        registry.putConfig("s", "FORWARD_TRANSITIVE", null);
        assertThat(registry.testCompatibility("s", null, SchemaType.AVRO, "a", List.of(), false))
                .isEmpty();
        assertThat(
                        registry.testCompatibility(
                                "s", "1", SchemaType.AVRO, "a b c d", List.of(), false))
                .containsExactly("added field d");
    }

    @Test
    void deletesGoSoftThenPermanentAsConfluentOrdersThem() {
        register("s", "a");
        register("s", "a b");
        assertThatThrownBy(() -> registry.deleteVersion("s", "1", true))
                .satisfies(
                        e ->
                                assertThat(code(e))
                                        .isEqualTo(ErrorCodes.SCHEMA_VERSION_NOT_SOFT_DELETED));
        assertThatThrownBy(() -> registry.deleteSubject("s", true))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCodes.SUBJECT_NOT_SOFT_DELETED));
        assertThat(registry.deleteVersion("s", "latest", false)).isEqualTo(2);
        assertThatThrownBy(() -> registry.deleteVersion("s", "2", false))
                .satisfies(
                        e -> assertThat(code(e)).isEqualTo(ErrorCodes.SCHEMA_VERSION_SOFT_DELETED));
        assertThat(registry.version("s", "latest", false).version().version()).isEqualTo(1);
        assertThat(registry.version("s", "2", true).version().deleted()).isTrue();
        assertThatThrownBy(() -> registry.version("s", "2", false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCodes.VERSION_NOT_FOUND));
        assertThat(registry.deleteSubject("s", false)).containsExactly(1);
        assertThatThrownBy(() -> registry.deleteSubject("s", false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCodes.SUBJECT_SOFT_DELETED));
        assertThat(registry.subjects(null, false)).isEmpty();
        assertThat(registry.subjects(null, true)).containsExactly("s");
        // soft-deleted versions still count for records written with them
        assertThat(registry.registeredUnder("s", 1)).isTrue();
        assertThat(registry.deleteSubject("s", true)).containsExactly(1, 2);
        assertThat(registry.subjects(null, true)).isEmpty();
    }

    @Test
    void aReferencedVersionCannotBeDeletedAndReferencesResolveToConcreteVersions() {
        register("common", "id");
        register("common", "id name");
        SubjectSchema user =
                registry.register(
                        "user",
                        SchemaType.AVRO,
                        "user",
                        List.of(new SchemaReference("Common", "common", -1)),
                        false);
        assertThat(registry.schema(user.id()).orElseThrow().references())
                .as("latest pinned to the version it named at registration")
                .containsExactly(new SchemaReference("Common", "common", 2));
        assertThat(registry.referencedBy("common", "2")).containsExactly(user.id());
        assertThatThrownBy(() -> registry.deleteVersion("common", "2", false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCodes.REFERENCE_EXISTS));
        assertThatThrownBy(
                        () ->
                                registry.register(
                                        "user2",
                                        SchemaType.AVRO,
                                        "x",
                                        List.of(new SchemaReference("C", "common", 9)),
                                        false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCodes.INVALID_SCHEMA));
    }

    @Test
    void aSchemaStillParsesAfterTheVersionsItReferencesAreDeletedPermanently() {
        register("common", "id");
        SubjectSchema user =
                registry.register(
                        "user",
                        SchemaType.AVRO,
                        "user",
                        List.of(new SchemaReference("Common", "common", 1)),
                        false);
        // the referring version goes first (42206 otherwise), then the referenced one
        registry.deleteSubject("user", false);
        registry.deleteSubject("user", true);
        registry.deleteSubject("common", false);
        registry.deleteSubject("common", true);
        // a process with cold caches (values stored once must be rebuilt from these schemas)
        CatalogSchemaRegistry fresh =
                new CatalogSchemaRegistry(catalog.schemas(), new WordFormats(), ticker);
        ParsedSchema parsed = fresh.parsed(user.id()).orElseThrow();
        assertThat(parsed.references()).containsExactly(new SchemaReference("Common", "common", 1));
    }

    @Test
    void badInputGetsConfluentCodes() {
        assertThatThrownBy(() -> register("s", "invalid"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCodes.INVALID_SCHEMA));
        assertThatThrownBy(() -> register("", "a"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCodes.INVALID_SUBJECT));
        assertThatThrownBy(() -> registry.version("s", "0", false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCodes.INVALID_VERSION));
        assertThatThrownBy(() -> registry.version("nope", "1", false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCodes.SUBJECT_NOT_FOUND));
        assertThatThrownBy(() -> registry.putConfig(null, "SIDEWAYS", null))
                .satisfies(
                        e -> assertThat(code(e)).isEqualTo(ErrorCodes.INVALID_COMPATIBILITY_LEVEL));
        assertThatThrownBy(() -> registry.putMode(null, "IMPORT"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCodes.INVALID_MODE));
        assertThatThrownBy(() -> registry.schemaById(99))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCodes.SCHEMA_NOT_FOUND));
        register("s", "a");
        assertThatThrownBy(
                        () -> registry.lookup("s", SchemaType.AVRO, "b", List.of(), false, false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCodes.SCHEMA_NOT_FOUND));
        assertThat(registry.lookup("s", SchemaType.AVRO, " a ", List.of(), false, false).id())
                .isEqualTo(1);
    }

    @Test
    void settingsAreGlobalOrPerSubjectAndReadOnlyModeRefusesWrites() {
        assertThat(registry.effectiveConfig("s")).isEqualTo(SubjectConfig.DEFAULT);
        registry.putConfig(null, "FULL", null);
        assertThat(registry.effectiveConfig("s").compatibility())
                .isEqualTo(CompatibilityLevel.FULL);
        assertThat(registry.config("s")).isEmpty();
        registry.putConfig("s", "NONE", true);
        assertThat(registry.config("s").orElseThrow())
                .isEqualTo(new SubjectConfig(CompatibilityLevel.NONE, Optional.of(true)));
        assertThat(registry.deleteConfig("s").compatibility()).isEqualTo(CompatibilityLevel.NONE);
        assertThatThrownBy(() -> registry.deleteConfig("s"))
                .satisfies(
                        e ->
                                assertThat(code(e))
                                        .isEqualTo(
                                                ErrorCodes.SUBJECT_COMPATIBILITY_NOT_CONFIGURED));
        assertThat(registry.effectiveMode("s")).isEqualTo(RegistryMode.READWRITE);
        registry.putMode("s", "READONLY");
        assertThatThrownBy(() -> register("s", "a"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCodes.OPERATION_NOT_PERMITTED));
        register("t", "a");
        assertThat(registry.deleteMode("s")).isEqualTo(RegistryMode.READONLY);
        register("s", "a");
    }

    @Test
    void cachedAnswersNeverBlockAndAnUnknownAnswerIsShortLived() {
        SubjectSchema v = register("s", "a");
        assertThat(registry.cachedSchema(v.id())).as("cached by the registration").isPresent();
        assertThat(registry.cachedRegisteredUnder("s", v.id())).isEmpty();
        assertThat(registry.registeredUnder("s", v.id())).isTrue();
        assertThat(registry.cachedRegisteredUnder("s", v.id())).contains(true);
        assertThat(registry.cachedRegisteredUnder("s", 42))
                .as("just read: known absent")
                .contains(false);
        nanos.addAndGet(RegistryCaches.UNKNOWN_TTL.toNanos());
        assertThat(registry.cachedRegisteredUnder("s", 42)).as("maybe registered since").isEmpty();
        // another process registers under the subject: seen on the next blocking ask
        try (Catalog other = Catalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"))) {
            CatalogSchemaRegistry elsewhere =
                    new CatalogSchemaRegistry(other.schemas(), new WordFormats(), ticker);
            int id = elsewhere.register("s", SchemaType.AVRO, "a b", List.of(), false).id();
            assertThat(registry.registeredUnder("s", id)).isTrue();
            assertThat(registry.schema(id)).isPresent();
        }
    }

    @Test
    void twoProcessesRegisteringAtOnceOnOneCatalogNeverShareAnIdOrAVersion() throws Exception {
        registry.putConfig(null, "NONE", null);
        int perWriter = 15;
        try (Catalog other = Catalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"))) {
            CatalogSchemaRegistry elsewhere =
                    new CatalogSchemaRegistry(other.schemas(), new WordFormats(), ticker);
            java.util.concurrent.ExecutorService pool =
                    java.util.concurrent.Executors.newFixedThreadPool(2);
            try {
                List<java.util.concurrent.Future<List<SubjectSchema>>> results =
                        new java.util.ArrayList<>();
                for (CatalogSchemaRegistry r : List.of(registry, elsewhere)) {
                    String who = r == registry ? "p" : "q";
                    results.add(
                            pool.submit(
                                    () -> {
                                        List<SubjectSchema> out = new java.util.ArrayList<>();
                                        for (int i = 0; i < perWriter; i++) {
                                            // the same subject, and a schema the other also writes
                                            out.add(
                                                    r.register(
                                                            "s",
                                                            SchemaType.AVRO,
                                                            who + i,
                                                            List.of(),
                                                            false));
                                            out.add(
                                                    r.register(
                                                            "s",
                                                            SchemaType.AVRO,
                                                            "shared" + i,
                                                            List.of(),
                                                            false));
                                        }
                                        return out;
                                    }));
                }
                List<SubjectSchema> all = new java.util.ArrayList<>();
                for (var f : results) {
                    all.addAll(f.get());
                }
                List<SubjectVersion> versions = registry.versions("s", true);
                assertThat(versions)
                        .extracting(SubjectVersion::version)
                        .as("contiguous, each once")
                        .containsExactlyElementsOf(
                                java.util.stream.IntStream.rangeClosed(1, 3 * perWriter)
                                        .boxed()
                                        .toList());
                assertThat(versions).extracting(SubjectVersion::schemaId).doesNotHaveDuplicates();
                assertThat(registry.maxSchemaId()).isEqualTo(3 * perWriter);
                for (int i = 0; i < perWriter; i++) {
                    String text = "shared" + i;
                    assertThat(
                                    all.stream()
                                            .filter(
                                                    x ->
                                                            registry.schema(x.id())
                                                                    .orElseThrow()
                                                                    .text()
                                                                    .equals(text))
                                            .map(SubjectSchema::id)
                                            .distinct())
                            .as("one id for %s", text)
                            .hasSize(1);
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void aClosedCatalogIsAStoreErrorNotACrash() {
        register("s", "a");
        catalog.close();
        assertThatThrownBy(() -> register("s", "a b"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCodes.STORE_ERROR))
                .hasMessageContaining("catalog");
    }
}
