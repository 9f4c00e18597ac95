package io.tierlog.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The numbering rules of {@link SchemaStore} on every catalog backend (see {@link
 * CatalogContract}'s subclasses): ids, versions and field ids, races between two catalogs on one
 * database, and a failure inside a registration's transaction.
 */
interface SchemaStoreContract {
    Catalog catalog();

    Catalog openCatalog();

    Connection rawConnection() throws SQLException;

    /** Statements making an insert into {@code registry_field_ids} of the path "boom" fail. */
    List<String> fieldIdTrapStatements();

    private static SchemaStore.Registration reg(
            String subject, int next, String fingerprint, String... paths) {
        return new SchemaStore.Registration(
                subject,
                next,
                "AVRO",
                "text of " + fingerprint,
                fingerprint,
                List.of(),
                List.of(paths));
    }

    @Test
    default void idsAreGlobalVersionsPerSubjectAndAFingerprintHasOneId() {
        SchemaStore s = catalog().schemas();
        assertThat(s.maxSchemaId()).isZero();
        assertThat(s.nextVersion("a")).isEqualTo(1);
        SchemaStore.Version a1 = s.register(reg("a", 1, "f1", "x"));
        SchemaStore.Version b1 = s.register(reg("b", 1, "f1", "x"));
        SchemaStore.Version a2 = s.register(reg("a", 2, "f2", "x", "y"));
        assertThat(List.of(a1.schemaId(), b1.schemaId(), a2.schemaId())).containsExactly(1, 1, 2);
        assertThat(List.of(a1.version(), b1.version(), a2.version())).containsExactly(1, 1, 2);
        assertThat(s.schemaByFingerprint("f2").orElseThrow().id()).isEqualTo(2);
        assertThat(s.schema(1).orElseThrow().text()).isEqualTo("text of f1");
        assertThat(s.versionsOf(1, false))
                .extracting(SchemaStore.Version::subject)
                .containsExactly("a", "b");
        assertThat(s.subjects(false)).containsExactly("a", "b");
        assertThat(s.nextVersion("a")).isEqualTo(3);
    }

    @Test
    default void aRegistrationOnAStaleReadIsAConflictAndWritesNothing() {
        SchemaStore s = catalog().schemas();
        try (Catalog other = openCatalog()) {
            int seen = s.nextVersion("a");
            int seenElsewhere = other.schemas().nextVersion("a");
            other.schemas().register(reg("a", seenElsewhere, "theirs", "x"));
            assertThatThrownBy(() -> s.register(reg("a", seen, "mine", "x")))
                    .isInstanceOf(SchemaConflictException.class);
        }
        assertThat(s.schemaByFingerprint("mine")).isEmpty();
        assertThat(s.versions("a", true)).hasSize(1);
        assertThat(s.register(reg("a", s.nextVersion("a"), "mine", "x")).version()).isEqualTo(2);
    }

    @Test
    default void fieldIdsKeepTheirIdAndTheCounterNeverGoesDown() {
        SchemaStore s = catalog().schemas();
        assertThat(s.register(reg("a", 1, "f1", "x", "y")).fieldIds())
                .isEqualTo(Map.of("x", 1, "y", 2));
        assertThat(s.register(reg("a", 2, "f2", "x")).fieldIds()).isEqualTo(Map.of("x", 1));
        assertThat(s.register(reg("a", 3, "f3", "x", "y")).fieldIds())
                .as("y absent from the latest version: a new id")
                .isEqualTo(Map.of("x", 1, "y", 3));
        for (int v = 1; v <= 3; v++) {
            assertThat(s.softDelete("a", v)).isTrue();
            assertThat(s.hardDelete("a", v)).isTrue();
        }
        assertThat(s.hardDelete("a", 1)).isFalse();
        assertThat(s.versions("a", true)).isEmpty();
        assertThat(s.subjects(true)).isEmpty();
        SchemaStore.Version again = s.register(reg("a", 4, "f1", "x"));
        assertThat(again.version()).isEqualTo(4);
        assertThat(again.schemaId()).as("the schema row outlived its versions").isEqualTo(1);
        assertThat(again.fieldIds()).isEqualTo(Map.of("x", 4));
        assertThat(s.maxSchemaId()).isEqualTo(3);
    }

    @Test
    default void referencesCountWhileTheReferringVersionExists() {
        SchemaStore s = catalog().schemas();
        s.register(reg("common", 1, "c1"));
        SchemaStore.Version user =
                s.register(
                        new SchemaStore.Registration(
                                "user",
                                1,
                                "PROTOBUF",
                                "import",
                                "u1",
                                List.of(new SchemaStore.Reference("common.proto", "common", 1, 1)),
                                List.of()));
        assertThat(s.schema(user.schemaId()).orElseThrow().references())
                .containsExactly(new SchemaStore.Reference("common.proto", "common", 1, 1));
        assertThat(s.referencedBy("common", 1)).containsExactly(user.schemaId());
        s.softDelete("user", 1);
        assertThat(s.referencedBy("common", 1)).as("soft-deleted still refers").hasSize(1);
        s.hardDelete("user", 1);
        assertThat(s.referencedBy("common", 1)).isEmpty();
    }

    @Test
    default void settingsArePerScopeAndDeletedByKey() {
        SchemaStore s = catalog().schemas();
        s.putConfig(SchemaStore.GLOBAL, Map.of("compatibility", "FULL"));
        s.putConfig("a", Map.of("compatibility", "NONE", "mode", "READONLY"));
        s.putConfig("a", Map.of("compatibility", "FORWARD"));
        assertThat(s.config("a")).isEqualTo(Map.of("compatibility", "FORWARD", "mode", "READONLY"));
        assertThat(s.deleteConfig("a", Set.of("mode", "normalize")))
                .isEqualTo(Map.of("mode", "READONLY"));
        assertThat(s.config("a")).isEqualTo(Map.of("compatibility", "FORWARD"));
        assertThat(s.config(SchemaStore.GLOBAL)).isEqualTo(Map.of("compatibility", "FULL"));
        assertThat(s.config("b")).isEmpty();
    }

    @Test
    default void aFailureInsideARegistrationLeavesNoTraceAndNumberingContinues() throws Exception {
        try (Connection c = rawConnection();
                Statement st = c.createStatement()) {
            for (String sql : fieldIdTrapStatements()) {
                st.execute(sql);
            }
        }
        SchemaStore s = catalog().schemas();
        assertThatThrownBy(() -> s.register(reg("a", 1, "f1", "x", "boom")))
                .isInstanceOf(CatalogException.class)
                .isNotInstanceOf(SchemaConflictException.class);
        assertThat(s.schemaByFingerprint("f1")).as("the schema row rolled back too").isEmpty();
        assertThat(s.maxSchemaId()).isZero();
        assertThat(s.nextVersion("a")).isEqualTo(1);
        SchemaStore.Version v = s.register(reg("a", 1, "f1", "x"));
        assertThat(v.version()).isEqualTo(1);
        assertThat(v.schemaId()).isEqualTo(1);
        assertThat(v.fieldIds()).isEqualTo(Map.of("x", 1));
    }
}
