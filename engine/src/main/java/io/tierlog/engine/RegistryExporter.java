package io.tierlog.engine;

import io.tierlog.catalog.SchemaStore;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.ObjectStore;
import io.tierlog.registry.RegistryCopyCodec;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the schema registry's copy in the bucket ({@link RegistryCopy}) equal to the catalog, the
 * source of truth while it exists, so that {@code tierlog catalog rebuild} brings the registry back
 * with its ids, versions, field ids and counters. A pass takes a snapshot of the catalog's registry
 * rows, lists the copy, and puts every document the bucket lacks or holds differently; it runs on
 * each change this process makes (the store's change listener, before the change is acknowledged)
 * and at startup and on housekeeping, so a change whose put failed or was cut short by a crash
 * (kill -9 between the catalog commit and the put) is copied by the next pass, and changes other
 * processes on the catalog made are copied too. Idempotent.
 *
 * <p>The copy never goes backwards: a schema document that names another schema than the catalog's
 * row of that id, or a subject document whose counters are ahead of the catalog's, is left as it is
 * and reported (a catalog rolled back to an old backup must not erase what was handed out since;
 * rebuild from the bucket instead). Subject documents are only removed when they carry no counters
 * (settings-only scopes whose settings were all deleted).
 *
 * <p>Thread-safe: passes are serialised.
 */
final class RegistryExporter {
    private static final Logger LOG = LoggerFactory.getLogger(RegistryExporter.class);

    /** What a pass did. */
    record Pass(int put, int deleted, int kept, int unchanged) {}

    private final SchemaStore schemas;
    private final ObjectStore store;
    private final String root;

    /** What this process knows the bucket holds, key to bytes (sizes are checked on each list). */
    private final Map<String, byte[]> known = new HashMap<>();

    RegistryExporter(SchemaStore schemas, ObjectStore store, String prefix) {
        this.schemas = schemas;
        this.store = store;
        this.root = RegistryCopy.root(prefix);
    }

    /** Runs a pass after every change this process makes through {@code schemas}. */
    RegistryExporter listen() {
        schemas.addChangeListener(this::passQuietly);
        return this;
    }

    /** A pass whose failure is logged (the next pass repairs it). */
    void passQuietly() {
        try {
            pass();
        } catch (IOException | RuntimeException e) {
            LOG.warn(
                    "could not copy the schema registry to the bucket ({}); the next pass retries",
                    e.toString());
        }
    }

    synchronized Pass pass() throws IOException {
        SchemaStore.Snapshot snapshot = schemas.snapshot();
        Map<String, byte[]> wanted = RegistryCopy.render(snapshot, root);
        Map<String, ObjectInfo> listed = new HashMap<>();
        for (ObjectInfo info : store.list(root)) {
            listed.put(info.key(), info);
        }
        known.keySet().retainAll(listed.keySet());
        int put = 0;
        int deleted = 0;
        int kept = 0;
        int unchanged = 0;
        IOException failure = null;
        for (Map.Entry<String, byte[]> e : wanted.entrySet()) {
            String key = e.getKey();
            byte[] have = current(key, listed.get(key));
            if (RegistryCopy.same(have, e.getValue())) {
                unchanged++;
                continue;
            }
            if (have != null && !overwritable(key, have, e.getValue())) {
                kept++;
                continue;
            }
            try {
                store.put(key, e.getValue());
            } catch (IOException x) {
                // one document the store refuses (a subject too long for a key) must not keep
                // the others out of the bucket: put them, then fail the pass
                if (failure == null) {
                    failure = x;
                } else {
                    failure.addSuppressed(x);
                }
                continue;
            }
            known.put(key, e.getValue());
            put++;
        }
        for (String key : listed.keySet()) {
            if (wanted.containsKey(key) || RegistryCopy.isSchemaKey(root, key)) {
                continue;
            }
            byte[] have = current(key, listed.get(key));
            if (have == null || !settingsOnly(have)) {
                continue;
            }
            store.delete(key);
            known.remove(key);
            deleted++;
        }
        if (failure != null) {
            throw failure;
        }
        return new Pass(put, deleted, kept, unchanged);
    }

    /** The bytes under {@code key}: known ones if the size still matches, else read back. */
    private byte[] current(String key, ObjectInfo info) throws IOException {
        if (info == null) {
            return null;
        }
        byte[] k = known.get(key);
        if (k != null && k.length == info.size()) {
            return k;
        }
        byte[] read = RegistryCopy.bytes(store.get(key));
        known.put(key, read);
        return read;
    }

    private boolean overwritable(String key, byte[] have, byte[] want) {
        try {
            if (RegistryCopy.isSchemaKey(root, key)) {
                SchemaStore.Schema h = RegistryCopyCodec.decodeSchema(have);
                SchemaStore.Schema w = RegistryCopyCodec.decodeSchema(want);
                if (!h.fingerprint().equals(w.fingerprint())) {
                    LOG.warn(
                            "the bucket's copy of schema {} is another schema than the catalog's"
                                    + " (a rolled-back catalog?): kept; see `tierlog verify`",
                            w.id());
                    return false;
                }
                return true;
            }
            RegistryCopyCodec.Scope h = RegistryCopyCodec.decodeScope(have);
            RegistryCopyCodec.Scope w = RegistryCopyCodec.decodeScope(want);
            if (h.counters().isPresent()
                    && (w.counters().isEmpty()
                            || h.counters().get().nextVersion() > w.counters().get().nextVersion()
                            || h.counters().get().nextFieldId()
                                    > w.counters().get().nextFieldId())) {
                LOG.warn(
                        "the bucket's copy of subject '{}' is ahead of the catalog (a rolled-back"
                                + " catalog?): kept; see `tierlog verify`",
                        w.scope());
                return false;
            }
            return true;
        } catch (RegistryCopyCodec.DamagedException e) {
            return true; // a damaged document is replaced by the catalog's
        }
    }

    private static boolean settingsOnly(byte[] have) {
        try {
            RegistryCopyCodec.Scope s = RegistryCopyCodec.decodeScope(have);
            return s.counters().isEmpty() && s.versions().isEmpty();
        } catch (RegistryCopyCodec.DamagedException e) {
            return false;
        }
    }
}
