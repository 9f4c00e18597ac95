package io.tierlog.catalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@link SchemaStore} over the tables of schema version 7 (see {@link SchemaMigrations}), on its
 * catalog's connection and lock. A registration is one write transaction that locks the subject's
 * counter row ({@code FOR UPDATE} on PostgreSQL; SQLite's {@code BEGIN IMMEDIATE} serialises all
 * writers), so two processes never hand out one version twice; a second process computing the same
 * new schema id loses on the primary key and gets a {@link SchemaConflictException}. Thread-safe.
 */
final class JdbcSchemaStore implements SchemaStore {
    private static final String VERSION_COLUMNS = "v.subject, v.version, v.schema_id, v.deleted";

    private final JdbcCatalog catalog;
    private final List<Runnable> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    JdbcSchemaStore(JdbcCatalog catalog) {
        this.catalog = catalog;
    }

    @Override
    public Snapshot snapshot() {
        return catalog.call(SchemaStoreSnapshots::read);
    }

    @Override
    public void importSnapshot(Snapshot snapshot) {
        catalog.inTransaction(
                c -> {
                    SchemaStoreSnapshots.importInto(c, snapshot);
                    return null;
                });
        changed();
    }

    @Override
    public void addChangeListener(Runnable listener) {
        listeners.add(java.util.Objects.requireNonNull(listener, "listener"));
    }

    /** Tells the listeners after a commit; what they throw must not undo a committed change. */
    private void changed() {
        for (Runnable l : listeners) {
            try {
                l.run();
            } catch (RuntimeException e) {
                // the change is committed; a listener's failure is its own to report
            }
        }
    }

    private boolean changedIf(boolean changed) {
        if (changed) {
            changed();
        }
        return changed;
    }

    private <T> T changed(T result) {
        changed();
        return result;
    }

    @Override
    public Optional<Schema> schema(int id) {
        return catalog.call(c -> readSchema(c, "id = ?", ps -> ps.setInt(1, id)));
    }

    @Override
    public Optional<Schema> schemaByFingerprint(String fingerprint) {
        return catalog.call(
                c -> readSchema(c, "fingerprint = ?", ps -> ps.setString(1, fingerprint)));
    }

    @Override
    public int maxSchemaId() {
        return catalog.call(JdbcSchemaStore::maxId);
    }

    @Override
    public List<Version> versions(String subject, boolean includeDeleted) {
        return catalog.call(
                c ->
                        readVersions(
                                c,
                                "v.subject = ?" + (includeDeleted ? "" : " AND v.deleted = 0"),
                                " ORDER BY v.version",
                                ps -> ps.setString(1, subject)));
    }

    @Override
    public Optional<Version> version(String subject, int version) {
        return catalog.call(
                c ->
                        readVersions(
                                        c,
                                        "v.subject = ? AND v.version = ?",
                                        "",
                                        ps -> {
                                            ps.setString(1, subject);
                                            ps.setInt(2, version);
                                        })
                                .stream()
                                .findFirst());
    }

    @Override
    public int nextVersion(String subject) {
        return catalog.call(c -> counters(c, subject, "").map(n -> n[0]).orElse(1));
    }

    @Override
    public List<String> subjects(boolean includeDeleted) {
        return catalog.call(
                c -> {
                    List<String> out = new ArrayList<>();
                    try (PreparedStatement ps =
                                    c.prepareStatement(
                                            "SELECT DISTINCT subject FROM registry_versions"
                                                    + (includeDeleted ? "" : " WHERE deleted = 0")
                                                    + " ORDER BY subject");
                            ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            out.add(rs.getString(1));
                        }
                    }
                    return out;
                });
    }

    @Override
    public List<Version> versionsOf(int schemaId, boolean includeDeleted) {
        return catalog.call(
                c ->
                        readVersions(
                                c,
                                "v.schema_id = ?" + (includeDeleted ? "" : " AND v.deleted = 0"),
                                " ORDER BY v.subject, v.version",
                                ps -> ps.setInt(1, schemaId)));
    }

    @Override
    public List<Integer> referencedBy(String subject, int version) {
        return catalog.call(
                c -> {
                    List<Integer> out = new ArrayList<>();
                    try (PreparedStatement ps =
                            c.prepareStatement(
                                    "SELECT DISTINCT r.schema_id FROM registry_schema_refs r"
                                            + " WHERE r.ref_subject = ? AND r.ref_version = ?"
                                            + " AND EXISTS (SELECT 1 FROM registry_versions v"
                                            + " WHERE v.schema_id = r.schema_id)"
                                            + " ORDER BY r.schema_id")) {
                        ps.setString(1, subject);
                        ps.setInt(2, version);
                        try (ResultSet rs = ps.executeQuery()) {
                            while (rs.next()) {
                                out.add(rs.getInt(1));
                            }
                        }
                    }
                    return out;
                });
    }

    @Override
    public Version register(Registration r) {
        try {
            return changed(catalog.inTransaction(c -> registerIn(c, r)));
        } catch (SchemaConflictException e) {
            throw e;
        } catch (CatalogException e) {
            if (e.getCause() instanceof SQLException sql
                    && catalog.dialect().isUniqueViolation(sql)) {
                // Another process inserted the subject's counter row or took the schema id first.
                throw new SchemaConflictException(
                        "subject '" + r.subject() + "' changed concurrently: " + sql.getMessage(),
                        e);
            }
            throw e;
        }
    }

    private Version registerIn(Connection c, Registration r) throws SQLException {
        Optional<int[]> counters = counters(c, r.subject(), catalog.dialect().forUpdate());
        int next = counters.map(n -> n[0]).orElse(1);
        int nextFieldId = counters.map(n -> n[1]).orElse(1);
        if (next != r.expectedNextVersion()) {
            throw new SchemaConflictException(
                    "subject '"
                            + r.subject()
                            + "' is at version "
                            + (next - 1)
                            + ", not "
                            + (r.expectedNextVersion() - 1)
                            + " as read: registered concurrently");
        }
        Optional<Schema> existing =
                readSchema(c, "fingerprint = ?", ps -> ps.setString(1, r.fingerprint()));
        int id;
        if (existing.isPresent()) {
            id = existing.get().id();
        } else {
            id = maxId(c) + 1;
            insertSchema(c, id, r);
        }
        Map<String, Integer> previous = latestFieldIds(c, r.subject());
        Map<String, Integer> fieldIds = new LinkedHashMap<>();
        for (String path : r.fieldPaths()) {
            Integer kept = previous.get(path);
            fieldIds.put(path, kept != null ? kept : nextFieldId++);
        }
        try (PreparedStatement ps =
                c.prepareStatement(
                        "INSERT INTO registry_versions (subject, version, schema_id, deleted,"
                                + " created_at) VALUES (?, ?, ?, 0, ?)")) {
            ps.setString(1, r.subject());
            ps.setInt(2, next);
            ps.setInt(3, id);
            ps.setLong(4, System.currentTimeMillis());
            ps.executeUpdate();
        }
        try (PreparedStatement ps =
                c.prepareStatement(
                        "INSERT INTO registry_field_ids (subject, version, path, field_id)"
                                + " VALUES (?, ?, ?, ?)")) {
            for (Map.Entry<String, Integer> e : fieldIds.entrySet()) {
                ps.setString(1, r.subject());
                ps.setInt(2, next);
                ps.setString(3, e.getKey());
                ps.setInt(4, e.getValue());
                ps.addBatch();
            }
            if (!fieldIds.isEmpty()) {
                ps.executeBatch();
            }
        }
        String counterSql =
                counters.isPresent()
                        ? "UPDATE registry_subjects SET next_version = ?, next_field_id = ?"
                                + " WHERE subject = ?"
                        : "INSERT INTO registry_subjects (next_version, next_field_id, subject)"
                                + " VALUES (?, ?, ?)";
        try (PreparedStatement ps = c.prepareStatement(counterSql)) {
            ps.setInt(1, next + 1);
            ps.setInt(2, nextFieldId);
            ps.setString(3, r.subject());
            ps.executeUpdate();
        }
        return new Version(r.subject(), next, id, false, fieldIds);
    }

    private static void insertSchema(Connection c, int id, Registration r) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "INSERT INTO registry_schemas (id, schema_type, schema_text, fingerprint,"
                                + " created_at) VALUES (?, ?, ?, ?, ?)")) {
            ps.setInt(1, id);
            ps.setString(2, r.type());
            ps.setString(3, r.text());
            ps.setString(4, r.fingerprint());
            ps.setLong(5, System.currentTimeMillis());
            ps.executeUpdate();
        }
        try (PreparedStatement ps =
                c.prepareStatement(
                        "INSERT INTO registry_schema_refs (schema_id, position, ref_name,"
                                + " ref_subject, ref_version, ref_schema_id)"
                                + " VALUES (?, ?, ?, ?, ?, ?)")) {
            int position = 0;
            for (Reference ref : r.references()) {
                ps.setInt(1, id);
                ps.setInt(2, position++);
                ps.setString(3, ref.name());
                ps.setString(4, ref.subject());
                ps.setInt(5, ref.version());
                ps.setInt(6, ref.schemaId());
                ps.addBatch();
            }
            if (position > 0) {
                ps.executeBatch();
            }
        }
    }

    /** The field ids of the subject's highest version still stored, empty when none. */
    private static Map<String, Integer> latestFieldIds(Connection c, String subject)
            throws SQLException {
        Map<String, Integer> out = new HashMap<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT path, field_id FROM registry_field_ids WHERE subject = ? AND"
                                + " version = (SELECT MAX(version) FROM registry_versions"
                                + " WHERE subject = ?)")) {
            ps.setString(1, subject);
            ps.setString(2, subject);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getInt(2));
                }
            }
        }
        return out;
    }

    @Override
    public boolean softDelete(String subject, int version) {
        return changedIf(
                catalog.inTransaction(
                        c -> {
                            try (PreparedStatement ps =
                                    c.prepareStatement(
                                            "UPDATE registry_versions SET deleted = 1"
                                                    + " WHERE subject = ? AND version = ?")) {
                                ps.setString(1, subject);
                                ps.setInt(2, version);
                                return ps.executeUpdate() > 0;
                            }
                        }));
    }

    @Override
    public boolean hardDelete(String subject, int version) {
        return changedIf(
                catalog.inTransaction(
                        c -> {
                            try (PreparedStatement ps =
                                    c.prepareStatement(
                                            "DELETE FROM registry_field_ids"
                                                    + " WHERE subject = ? AND version = ?")) {
                                ps.setString(1, subject);
                                ps.setInt(2, version);
                                ps.executeUpdate();
                            }
                            try (PreparedStatement ps =
                                    c.prepareStatement(
                                            "DELETE FROM registry_versions"
                                                    + " WHERE subject = ? AND version = ?")) {
                                ps.setString(1, subject);
                                ps.setInt(2, version);
                                return ps.executeUpdate() > 0;
                            }
                        }));
    }

    @Override
    public Map<String, String> config(String scope) {
        return catalog.call(c -> readConfig(c, scope));
    }

    @Override
    public void putConfig(String scope, Map<String, String> settings) {
        changed(
                catalog.inTransaction(
                        c -> {
                            for (Map.Entry<String, String> e : settings.entrySet()) {
                                try (PreparedStatement del =
                                        c.prepareStatement(
                                                "DELETE FROM registry_config"
                                                        + " WHERE scope = ? AND config_key = ?")) {
                                    del.setString(1, scope);
                                    del.setString(2, e.getKey());
                                    del.executeUpdate();
                                }
                                try (PreparedStatement ins =
                                        c.prepareStatement(
                                                "INSERT INTO registry_config (scope, config_key,"
                                                        + " config_value) VALUES (?, ?, ?)")) {
                                    ins.setString(1, scope);
                                    ins.setString(2, e.getKey());
                                    ins.setString(3, e.getValue());
                                    ins.executeUpdate();
                                }
                            }
                            return null;
                        }));
    }

    @Override
    public Map<String, String> deleteConfig(String scope, Set<String> keys) {
        return changed(
                catalog.inTransaction(
                        c -> {
                            Map<String, String> before = readConfig(c, scope);
                            Map<String, String> removed = new TreeMap<>();
                            for (String key : keys) {
                                if (!before.containsKey(key)) {
                                    continue;
                                }
                                removed.put(key, before.get(key));
                                try (PreparedStatement del =
                                        c.prepareStatement(
                                                "DELETE FROM registry_config"
                                                        + " WHERE scope = ? AND config_key = ?")) {
                                    del.setString(1, scope);
                                    del.setString(2, key);
                                    del.executeUpdate();
                                }
                            }
                            return removed;
                        }));
    }

    // ------------------------------------------------------------------ row mapping

    /** Binds a statement's parameters. */
    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    private static Map<String, String> readConfig(Connection c, String scope) throws SQLException {
        Map<String, String> out = new TreeMap<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT config_key, config_value FROM registry_config WHERE scope = ?")) {
            ps.setString(1, scope);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        return out;
    }

    private static int maxId(Connection c) throws SQLException {
        try (PreparedStatement ps =
                        c.prepareStatement("SELECT COALESCE(MAX(id), 0) FROM registry_schemas");
                ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getInt(1) : 0;
        }
    }

    /** {next_version, next_field_id} of the subject, if it was ever registered under. */
    private static Optional<int[]> counters(Connection c, String subject, String forUpdate)
            throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT next_version, next_field_id FROM registry_subjects"
                                + " WHERE subject = ?"
                                + forUpdate)) {
            ps.setString(1, subject);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next()
                        ? Optional.of(new int[] {rs.getInt(1), rs.getInt(2)})
                        : Optional.empty();
            }
        }
    }

    private static Optional<Schema> readSchema(Connection c, String where, Binder binder)
            throws SQLException {
        int id;
        String type;
        String text;
        String fingerprint;
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT id, schema_type, schema_text, fingerprint FROM registry_schemas"
                                + " WHERE "
                                + where)) {
            binder.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                id = rs.getInt(1);
                type = rs.getString(2);
                text = rs.getString(3);
                fingerprint = rs.getString(4);
            }
        }
        List<Reference> refs = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT ref_name, ref_subject, ref_version, ref_schema_id"
                                + " FROM registry_schema_refs"
                                + " WHERE schema_id = ? ORDER BY position")) {
            ps.setInt(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    refs.add(
                            new Reference(
                                    rs.getString(1), rs.getString(2), rs.getInt(3), rs.getInt(4)));
                }
            }
        }
        return Optional.of(new Schema(id, type, text, fingerprint, refs));
    }

    private static List<Version> readVersions(
            Connection c, String where, String orderBy, Binder binder) throws SQLException {
        record Row(String subject, int version, int schemaId, boolean deleted) {}
        List<Row> rows = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT "
                                + VERSION_COLUMNS
                                + " FROM registry_versions v WHERE "
                                + where
                                + orderBy)) {
            binder.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(
                            new Row(
                                    rs.getString(1),
                                    rs.getInt(2),
                                    rs.getInt(3),
                                    rs.getInt(4) != 0));
                }
            }
        }
        List<Version> out = new ArrayList<>(rows.size());
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT path, field_id FROM registry_field_ids"
                                + " WHERE subject = ? AND version = ?")) {
            for (Row row : rows) {
                Map<String, Integer> ids = new HashMap<>();
                ps.setString(1, row.subject());
                ps.setInt(2, row.version());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.put(rs.getString(1), rs.getInt(2));
                    }
                }
                out.add(
                        new Version(
                                row.subject(), row.version(), row.schemaId(), row.deleted(), ids));
            }
        }
        return out;
    }
}
