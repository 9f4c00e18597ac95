package io.tierlog.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link SchemaStore#snapshot} and {@link SchemaStore#importSnapshot} on every catalog backend: a
 * snapshot imported into an empty catalog reads back equal, numbering continues above everything
 * imported, a conflicting import writes nothing, and listeners hear of every committed change.
 */
interface SchemaImportContract {
    Catalog catalog();

    Catalog openCatalog();

    private static SchemaStore.Registration reg(
            String subject, int next, String fingerprint, String... paths) {
        return new SchemaStore.Registration(
                subject,
                next,
                "AVRO",
                "text of " + fingerprint,
                fingerprint,
                List.of(new SchemaStore.Reference("r", "ref", 1, 1)),
                List.of(paths));
    }

    @Test
    default void aSnapshotImportedIntoAnEmptyStoreReadsBackEqualAndNumberingGoesOnAboveIt() {
        SchemaStore s = catalog().schemas();
        s.register(reg("a", 1, "f1", "x"));
        s.register(reg("a", 2, "f2", "x", "y"));
        s.register(reg("b", 1, "f3", "z"));
        s.softDelete("a", 2);
        s.register(reg("gone", 1, "f4", "q"));
        s.hardDelete("gone", 1);
        s.putConfig("a", Map.of("compatibility", "NONE"));
        s.putConfig(SchemaStore.GLOBAL, Map.of("mode", "READWRITE"));
        SchemaStore.Snapshot snap = s.snapshot();
        assertThat(snap.schemas()).hasSize(4);
        assertThat(snap.counters()).extracting(SchemaStore.Counters::subject).contains("gone");

        SchemaStore.Snapshot shifted =
                new SchemaStore.Snapshot(
                        snap.schemas(),
                        snap.versions(),
                        // counters lost from the copy: the versions and field ids still raise them
                        snap.counters().stream().filter(c -> !c.subject().equals("a")).toList(),
                        snap.configs());
        try (Catalog fresh = freshCatalog()) {
            fresh.schemas().importSnapshot(shifted);
            SchemaStore f = fresh.schemas();
            assertThat(f.snapshot().schemas()).isEqualTo(snap.schemas());
            assertThat(f.snapshot().versions()).isEqualTo(snap.versions());
            assertThat(f.snapshot().configs()).isEqualTo(snap.configs());
            assertThat(f.nextVersion("a")).isEqualTo(3);
            assertThat(f.nextVersion("gone")).isEqualTo(2);
            SchemaStore.Version a3 = f.register(reg("a", 3, "f5", "x", "w"));
            assertThat(a3.schemaId()).isEqualTo(5);
            assertThat(a3.fieldIds()).containsEntry("x", 1).containsEntry("w", 3);
            fresh.schemas().importSnapshot(shifted); // again: rows present are kept
            assertThat(f.snapshot().versions()).hasSize(snap.versions().size() + 1);
        }
    }

    @Test
    default void anImportThatConflictsWritesNothing() {
        SchemaStore s = catalog().schemas();
        s.register(reg("a", 1, "f1", "x"));
        SchemaStore.Snapshot other =
                new SchemaStore.Snapshot(
                        List.of(
                                new SchemaStore.Schema(7, "AVRO", "t", "f7", List.of()),
                                new SchemaStore.Schema(1, "AVRO", "t", "not-f1", List.of())),
                        List.of(new SchemaStore.Version("c", 1, 7, false, Map.of())),
                        List.of(),
                        Map.of());
        assertThatThrownBy(() -> s.importSnapshot(other)).isInstanceOf(CatalogException.class);
        assertThat(s.maxSchemaId()).isEqualTo(1);
        assertThat(s.versions("c", true)).isEmpty();
    }

    @Test
    default void listenersHearOfEveryCommittedChange() {
        SchemaStore s = catalog().schemas();
        AtomicInteger heard = new AtomicInteger();
        List<String> order = new ArrayList<>();
        s.addChangeListener(heard::incrementAndGet);
        s.addChangeListener(
                () -> {
                    order.add("second");
                    throw new IllegalStateException("a listener's failure is its own");
                });
        s.register(reg("a", 1, "f1", "x"));
        s.softDelete("a", 1);
        s.softDelete("nope", 1); // nothing changed
        s.hardDelete("a", 1);
        s.putConfig("a", Map.of("k", "v"));
        s.deleteConfig("a", java.util.Set.of("k"));
        assertThat(heard).hasValue(5);
        assertThat(order).hasSize(5);
    }

    /** A catalog on a database of its own, empty. */
    Catalog freshCatalog();
}
