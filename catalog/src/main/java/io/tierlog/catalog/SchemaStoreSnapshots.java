package io.tierlog.catalog;

import io.tierlog.catalog.SchemaStore.Counters;
import io.tierlog.catalog.SchemaStore.Reference;
import io.tierlog.catalog.SchemaStore.Schema;
import io.tierlog.catalog.SchemaStore.Snapshot;
import io.tierlog.catalog.SchemaStore.Version;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reading all registry rows at once and writing rows kept elsewhere back with their numbers, for
 * {@link JdbcSchemaStore#snapshot} and {@link JdbcSchemaStore#importSnapshot}. Runs on the caller's
 * connection inside its transaction. Stateless.
 */
final class SchemaStoreSnapshots {
    private SchemaStoreSnapshots() {}

    static Snapshot read(Connection c) throws SQLException {
        Map<Integer, List<Reference>> refs = new HashMap<>();
        try (PreparedStatement ps =
                        c.prepareStatement(
                                "SELECT schema_id, ref_name, ref_subject, ref_version,"
                                        + " ref_schema_id FROM registry_schema_refs"
                                        + " ORDER BY schema_id, position");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                refs.computeIfAbsent(rs.getInt(1), k -> new ArrayList<>())
                        .add(
                                new Reference(
                                        rs.getString(2),
                                        rs.getString(3),
                                        rs.getInt(4),
                                        rs.getInt(5)));
            }
        }
        List<Schema> schemas = new ArrayList<>();
        try (PreparedStatement ps =
                        c.prepareStatement(
                                "SELECT id, schema_type, schema_text, fingerprint"
                                        + " FROM registry_schemas ORDER BY id");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                int id = rs.getInt(1);
                schemas.add(
                        new Schema(
                                id,
                                rs.getString(2),
                                rs.getString(3),
                                rs.getString(4),
                                refs.getOrDefault(id, List.of())));
            }
        }
        Map<String, Map<Integer, Map<String, Integer>>> fieldIds = new HashMap<>();
        try (PreparedStatement ps =
                        c.prepareStatement(
                                "SELECT subject, version, path, field_id FROM registry_field_ids");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                fieldIds.computeIfAbsent(rs.getString(1), k -> new HashMap<>())
                        .computeIfAbsent(rs.getInt(2), k -> new LinkedHashMap<>())
                        .put(rs.getString(3), rs.getInt(4));
            }
        }
        List<Version> versions = new ArrayList<>();
        try (PreparedStatement ps =
                        c.prepareStatement(
                                "SELECT subject, version, schema_id, deleted FROM registry_versions"
                                        + " ORDER BY subject, version");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String subject = rs.getString(1);
                int version = rs.getInt(2);
                versions.add(
                        new Version(
                                subject,
                                version,
                                rs.getInt(3),
                                rs.getInt(4) != 0,
                                fieldIds.getOrDefault(subject, Map.of())
                                        .getOrDefault(version, Map.of())));
            }
        }
        List<Counters> counters = new ArrayList<>();
        try (PreparedStatement ps =
                        c.prepareStatement(
                                "SELECT subject, next_version, next_field_id FROM registry_subjects"
                                        + " ORDER BY subject");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                counters.add(new Counters(rs.getString(1), rs.getInt(2), rs.getInt(3)));
            }
        }
        Map<String, Map<String, String>> configs = new TreeMap<>();
        try (PreparedStatement ps =
                        c.prepareStatement(
                                "SELECT scope, config_key, config_value FROM registry_config");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                configs.computeIfAbsent(rs.getString(1), k -> new TreeMap<>())
                        .put(rs.getString(2), rs.getString(3));
            }
        }
        return new Snapshot(schemas, versions, counters, configs);
    }

    static void importInto(Connection c, Snapshot s) throws SQLException {
        for (Schema schema : s.schemas()) {
            importSchema(c, schema);
        }
        Map<String, int[]> needed = new TreeMap<>(); // subject -> {next version, next field id}
        for (Counters k : s.counters()) {
            needed.merge(
                    k.subject(),
                    new int[] {k.nextVersion(), k.nextFieldId()},
                    SchemaStoreSnapshots::max);
        }
        for (Version v : s.versions()) {
            int maxField =
                    v.fieldIds().values().stream().mapToInt(Integer::intValue).max().orElse(0);
            needed.merge(
                    v.subject(),
                    new int[] {v.version() + 1, maxField + 1},
                    SchemaStoreSnapshots::max);
            importVersion(c, v);
        }
        for (Map.Entry<String, int[]> e : needed.entrySet()) {
            raiseCounters(c, e.getKey(), e.getValue());
        }
        for (Map.Entry<String, Map<String, String>> scope : s.configs().entrySet()) {
            for (Map.Entry<String, String> kv : scope.getValue().entrySet()) {
                try (PreparedStatement del =
                        c.prepareStatement(
                                "DELETE FROM registry_config WHERE scope = ? AND config_key = ?")) {
                    del.setString(1, scope.getKey());
                    del.setString(2, kv.getKey());
                    del.executeUpdate();
                }
                try (PreparedStatement ins =
                        c.prepareStatement(
                                "INSERT INTO registry_config (scope, config_key, config_value)"
                                        + " VALUES (?, ?, ?)")) {
                    ins.setString(1, scope.getKey());
                    ins.setString(2, kv.getKey());
                    ins.setString(3, kv.getValue());
                    ins.executeUpdate();
                }
            }
        }
    }

    private static int[] max(int[] a, int[] b) {
        return new int[] {Math.max(a[0], b[0]), Math.max(a[1], b[1])};
    }

    private static void importSchema(Connection c, Schema schema) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT id, fingerprint FROM registry_schemas WHERE id = ? OR fingerprint = ?")) {
            ps.setInt(1, schema.id());
            ps.setString(2, schema.fingerprint());
            try (ResultSet rs = ps.executeQuery()) {
                boolean same = false;
                while (rs.next()) {
                    if (rs.getInt(1) != schema.id()
                            || !rs.getString(2).equals(schema.fingerprint())) {
                        throw new CatalogException(
                                "cannot import schema "
                                        + schema.id()
                                        + ": the catalog holds schema "
                                        + rs.getInt(1)
                                        + " with fingerprint "
                                        + rs.getString(2)
                                        + ", the import has "
                                        + schema.fingerprint());
                    }
                    same = true;
                }
                if (same) {
                    return;
                }
            }
        }
        try (PreparedStatement ps =
                c.prepareStatement(
                        "INSERT INTO registry_schemas (id, schema_type, schema_text, fingerprint,"
                                + " created_at) VALUES (?, ?, ?, ?, ?)")) {
            ps.setInt(1, schema.id());
            ps.setString(2, schema.type());
            ps.setString(3, schema.text());
            ps.setString(4, schema.fingerprint());
            ps.setLong(5, System.currentTimeMillis());
            ps.executeUpdate();
        }
        try (PreparedStatement ps =
                c.prepareStatement(
                        "INSERT INTO registry_schema_refs (schema_id, position, ref_name,"
                                + " ref_subject, ref_version, ref_schema_id)"
                                + " VALUES (?, ?, ?, ?, ?, ?)")) {
            int position = 0;
            for (Reference ref : schema.references()) {
                ps.setInt(1, schema.id());
                ps.setInt(2, position++);
                ps.setString(3, ref.name());
                ps.setString(4, ref.subject());
                ps.setInt(5, ref.version());
                ps.setInt(6, ref.schemaId());
                ps.executeUpdate();
            }
        }
    }

    private static void importVersion(Connection c, Version v) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT 1 FROM registry_versions WHERE subject = ? AND version = ?")) {
            ps.setString(1, v.subject());
            ps.setInt(2, v.version());
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return;
                }
            }
        }
        try (PreparedStatement ps =
                c.prepareStatement(
                        "INSERT INTO registry_versions (subject, version, schema_id, deleted,"
                                + " created_at) VALUES (?, ?, ?, ?, ?)")) {
            ps.setString(1, v.subject());
            ps.setInt(2, v.version());
            ps.setInt(3, v.schemaId());
            ps.setInt(4, v.deleted() ? 1 : 0);
            ps.setLong(5, System.currentTimeMillis());
            ps.executeUpdate();
        }
        try (PreparedStatement ps =
                c.prepareStatement(
                        "INSERT INTO registry_field_ids (subject, version, path, field_id)"
                                + " VALUES (?, ?, ?, ?)")) {
            for (Map.Entry<String, Integer> e : v.fieldIds().entrySet()) {
                ps.setString(1, v.subject());
                ps.setInt(2, v.version());
                ps.setString(3, e.getKey());
                ps.setInt(4, e.getValue());
                ps.executeUpdate();
            }
        }
    }

    private static void raiseCounters(Connection c, String subject, int[] next)
            throws SQLException {
        int[] stored = null;
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT next_version, next_field_id FROM registry_subjects WHERE subject = ?")) {
            ps.setString(1, subject);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    stored = new int[] {rs.getInt(1), rs.getInt(2)};
                }
            }
        }
        int[] to = stored == null ? max(next, new int[] {1, 1}) : max(next, stored);
        try (PreparedStatement ps =
                c.prepareStatement(
                        stored == null
                                ? "INSERT INTO registry_subjects (next_version, next_field_id,"
                                        + " subject) VALUES (?, ?, ?)"
                                : "UPDATE registry_subjects SET next_version = ?,"
                                        + " next_field_id = ? WHERE subject = ?")) {
            ps.setInt(1, to[0]);
            ps.setInt(2, to[1]);
            ps.setString(3, subject);
            ps.executeUpdate();
        }
    }
}
