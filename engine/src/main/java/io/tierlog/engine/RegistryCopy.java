package io.tierlog.engine;

import io.tierlog.catalog.SchemaStore;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.ObjectKeys;
import io.tierlog.cold.ObjectStore;
import io.tierlog.registry.RegistryCopyCodec;
import java.io.IOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Where the schema registry's copy lives in the bucket and how a catalog snapshot maps onto it:
 * {@code [prefix/]schema-registry~/schemas/<id>.json} per schema, {@code
 * [prefix/]schema-registry~/subjects/<url-encoded subject>.json} per subject (counters, versions
 * with field ids, settings) and {@code [prefix/]schema-registry~/global.json} for the registry-wide
 * settings. {@code ~} is not a Kafka topic name character, so no topic's objects ever live under
 * it, and the keys end in {@code .json}, never in the cold object pattern ({@link ObjectKeys}), so
 * neither the orphan sweeper nor {@link BucketSurvey} ever takes them for cold objects. Stateless.
 */
final class RegistryCopy {
    static final String SEGMENT = "schema-registry~";

    /** The documents of the copy, read back. */
    record Read(
            Map<Integer, SchemaStore.Schema> schemas,
            Map<String, RegistryCopyCodec.Scope> scopes,
            List<String> damaged) {
        /** As a snapshot to import into a catalog. */
        SchemaStore.Snapshot snapshot() {
            List<SchemaStore.Version> versions = new ArrayList<>();
            List<SchemaStore.Counters> counters = new ArrayList<>();
            Map<String, Map<String, String>> configs = new TreeMap<>();
            for (RegistryCopyCodec.Scope s : scopes.values()) {
                versions.addAll(s.versions());
                s.counters().ifPresent(counters::add);
                if (!s.config().isEmpty()) {
                    configs.put(s.scope(), s.config());
                }
            }
            return new SchemaStore.Snapshot(
                    new ArrayList<>(schemas.values()), versions, counters, configs);
        }
    }

    private RegistryCopy() {}

    /** The key prefix of the copy, ending with '/'. */
    static String root(String prefix) {
        return ObjectKeys.normalizePrefix(prefix) + SEGMENT + "/";
    }

    static String schemaKey(String root, int id) {
        return root + "schemas/" + id + ".json";
    }

    static String scopeKey(String root, String scope) {
        if (scope.equals(SchemaStore.GLOBAL)) {
            return root + "global.json";
        }
        // '.' encoded too, so no subject becomes a "." or ".." path segment
        return root
                + "subjects/"
                + URLEncoder.encode(scope, StandardCharsets.UTF_8).replace(".", "%2E")
                + ".json";
    }

    static boolean isSchemaKey(String root, String key) {
        return key.startsWith(root + "schemas/");
    }

    /** The documents a snapshot is copied as, key to bytes, sorted by key. */
    static Map<String, byte[]> render(SchemaStore.Snapshot s, String root) {
        Map<String, byte[]> out = new TreeMap<>();
        for (SchemaStore.Schema schema : s.schemas()) {
            out.put(schemaKey(root, schema.id()), RegistryCopyCodec.encode(schema));
        }
        for (RegistryCopyCodec.Scope scope : scopes(s).values()) {
            out.put(scopeKey(root, scope.scope()), RegistryCopyCodec.encode(scope));
        }
        return out;
    }

    /** The snapshot's rows grouped by scope. */
    static Map<String, RegistryCopyCodec.Scope> scopes(SchemaStore.Snapshot s) {
        Map<String, SchemaStore.Counters> counters = new HashMap<>();
        s.counters().forEach(c -> counters.put(c.subject(), c));
        Map<String, List<SchemaStore.Version>> versions = new HashMap<>();
        s.versions()
                .forEach(v -> versions.computeIfAbsent(v.subject(), k -> new ArrayList<>()).add(v));
        Set<String> names = new TreeSet<>(counters.keySet());
        names.addAll(versions.keySet());
        names.addAll(s.configs().keySet());
        Map<String, RegistryCopyCodec.Scope> out = new TreeMap<>();
        for (String n : names) {
            out.put(
                    n,
                    new RegistryCopyCodec.Scope(
                            n,
                            Optional.ofNullable(counters.get(n)),
                            versions.getOrDefault(n, List.of()),
                            s.configs().getOrDefault(n, Map.of())));
        }
        return out;
    }

    /** Lists and reads the whole copy; a document that cannot be read is noted, never fatal. */
    static Read read(ObjectStore store, String prefix) throws IOException {
        String root = root(prefix);
        Map<Integer, SchemaStore.Schema> schemas = new TreeMap<>();
        Map<String, RegistryCopyCodec.Scope> scopes = new TreeMap<>();
        List<String> damaged = new ArrayList<>();
        for (ObjectInfo info : store.list(root)) {
            String key = info.key();
            if (!key.endsWith(".json")) {
                continue;
            }
            try {
                byte[] bytes = bytes(store.get(key));
                if (isSchemaKey(root, key)) {
                    SchemaStore.Schema s = RegistryCopyCodec.decodeSchema(bytes);
                    if (!key.equals(schemaKey(root, s.id()))) {
                        damaged.add(key + ": holds schema " + s.id() + ", not what the key says");
                        continue;
                    }
                    schemas.put(s.id(), s);
                } else {
                    RegistryCopyCodec.Scope s = RegistryCopyCodec.decodeScope(bytes);
                    if (!key.equals(scopeKey(root, s.scope()))) {
                        damaged.add(key + ": holds scope '" + s.scope() + "', not the key's");
                        continue;
                    }
                    scopes.put(s.scope(), s);
                }
            } catch (RegistryCopyCodec.DamagedException | IOException e) {
                damaged.add(key + ": " + e.getMessage());
            }
        }
        return new Read(schemas, scopes, damaged);
    }

    static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    static boolean same(byte[] a, byte[] b) {
        return a != null && b != null && Arrays.equals(a, b);
    }

    static String decodeSubject(String encoded) {
        return URLDecoder.decode(encoded, StandardCharsets.UTF_8);
    }
}
