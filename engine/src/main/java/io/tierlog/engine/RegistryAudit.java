package io.tierlog.engine;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.CatalogException;
import io.tierlog.catalog.SchemaStore;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.ObjectStore;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code tierlog verify} check of the schema registry's copy in the bucket ({@link
 * RegistryCopy}): every document the catalog's registry rows render to must be in the bucket with
 * the same bytes, else a catalog lost now would lose ids, versions or field ids ({@link
 * Violation.Kind#REGISTRY_NOT_IN_BUCKET}). The catalog is read before the bucket, so a change a
 * running server commits meanwhile is at worst missing for the moment its put takes (run again to
 * tell). Documents the catalog has no rows for are notes (a rolled-back catalog, or settings
 * deleted since). Only reads. Stateless.
 */
final class RegistryAudit {
    private RegistryAudit() {}

    static void audit(
            Catalog catalog,
            ObjectStore store,
            String prefix,
            List<Violation> violations,
            List<String> notes) {
        SchemaStore.Snapshot snapshot;
        try {
            snapshot = catalog.schemas().snapshot();
        } catch (CatalogException | UnsupportedOperationException e) {
            notes.add("schema registry not checked: " + e.getMessage());
            return;
        }
        String root = RegistryCopy.root(prefix);
        Map<String, byte[]> wanted = RegistryCopy.render(snapshot, root);
        Map<String, ObjectInfo> listed = new HashMap<>();
        try {
            for (ObjectInfo info : store.list(root)) {
                listed.put(info.key(), info);
            }
        } catch (IOException e) {
            violations.add(
                    new Violation(
                            null,
                            Violation.Kind.REGISTRY_NOT_IN_BUCKET,
                            "cannot list the schema registry copy "
                                    + root
                                    + ": "
                                    + e.getMessage()));
            return;
        }
        int missing = 0;
        for (Map.Entry<String, byte[]> e : wanted.entrySet()) {
            String key = e.getKey();
            String problem = null;
            if (!listed.containsKey(key)) {
                problem = "missing from the bucket";
            } else {
                try {
                    if (!RegistryCopy.same(RegistryCopy.bytes(store.get(key)), e.getValue())) {
                        problem = "differs from the catalog";
                    }
                } catch (IOException x) {
                    problem = "cannot be read (" + x.getMessage() + ")";
                }
            }
            if (problem != null) {
                missing++;
                violations.add(
                        new Violation(
                                null,
                                Violation.Kind.REGISTRY_NOT_IN_BUCKET,
                                "schema registry document "
                                        + key
                                        + " "
                                        + problem
                                        + ": a catalog rebuilt from the bucket now would lack it"
                                        + " (the server's next copy pass repairs it)"));
            }
        }
        for (String key : listed.keySet()) {
            if (!wanted.containsKey(key) && key.endsWith(".json")) {
                notes.add(
                        "schema registry document "
                                + key
                                + " has no rows in the catalog (settings deleted, or a rolled-back"
                                + " catalog)");
            }
        }
        if (missing == 0 && !wanted.isEmpty()) {
            notes.add(
                    "schema registry copy: "
                            + wanted.size()
                            + " documents, all in the bucket as in the catalog");
        }
    }
}
