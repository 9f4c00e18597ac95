package io.tierlog.engine;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.CatalogException;
import io.tierlog.catalog.SchemaStore;
import java.util.ArrayList;
import java.util.List;

/**
 * The schema registry part of {@code tierlog catalog rebuild}: imports the bucket's copy ({@link
 * RegistryCopy#read}) into the fresh catalog with the exact numbers ({@link
 * SchemaStore#importSnapshot}), and says what it found and did. Stateless.
 */
final class RegistryImport {
    private RegistryImport() {}

    /** One line: what the copy holds. */
    static String describe(RegistryCopy.Read copy) {
        SchemaStore.Snapshot s = copy.snapshot();
        int maxId = s.schemas().stream().mapToInt(SchemaStore.Schema::id).max().orElse(0);
        long deleted = s.versions().stream().filter(SchemaStore.Version::deleted).count();
        return "schema registry copy: "
                + s.schemas().size()
                + " schemas (highest id "
                + maxId
                + "), "
                + s.counters().size()
                + " subjects, "
                + s.versions().size()
                + " versions ("
                + deleted
                + " soft-deleted), "
                + s.configs().size()
                + " scopes with settings, "
                + copy.damaged().size()
                + " documents unreadable";
    }

    /** A note per document that could not be read (skipped), and what that may cost. */
    static List<String> notes(RegistryCopy.Read copy) {
        List<String> out = new ArrayList<>();
        for (String d : copy.damaged()) {
            out.add("skipped unreadable schema registry document " + d);
        }
        return out;
    }

    /** Imports the copy into {@code c}; a failure is a note, never the end of the rebuild. */
    static void into(Catalog c, RegistryCopy.Read copy, List<String> out) {
        SchemaStore.Snapshot s = copy.snapshot();
        if (s.schemas().isEmpty() && s.counters().isEmpty() && s.configs().isEmpty()) {
            return;
        }
        try {
            c.schemas().importSnapshot(s);
            out.add(
                    "schema registry imported: "
                            + s.schemas().size()
                            + " schemas, "
                            + s.versions().size()
                            + " versions; new ids continue above "
                            + c.schemas().maxSchemaId());
        } catch (CatalogException | UnsupportedOperationException e) {
            out.add("schema registry NOT imported: " + e.getMessage());
        }
    }
}
