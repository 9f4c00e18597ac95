package io.tierlog.registry;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Ticker;
import io.tierlog.catalog.Catalog;
import io.tierlog.common.testing.Property;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random interleavings of registrations and deletes through two registries on two catalogs of one
 * SQLite file (two processes sharing a catalog), checked after every step against a model of
 * Confluent's and tierlog's numbering rules: one id per schema for ever, ids and versions never
 * reused, field ids kept by path from the latest stored version and otherwise new.
 */
class RegistryNumberingPropertyTest {
    static final List<String> SUBJECTS = List.of("a-value", "b-value", "c-key");
    static final List<String> WORDS = List.of("id", "amount", "note", "tags", "owner");

    @TempDir Path dir;

    /** The model of one subject: its stored versions and counters. */
    static final class Model {
        final TreeMap<Integer, SubjectVersion> stored = new TreeMap<>();
        int nextVersion = 1;
        int nextFieldId = 1;
    }

    @Test
    void numberingFollowsTheRulesWhateverTheInterleaving() {
        Property.forAll(
                8,
                random -> {
                    Path db = Files.createTempDirectory(dir, "try").resolve("catalog.db");
                    try (Catalog c1 = Catalog.open("jdbc:sqlite:" + db);
                            Catalog c2 = Catalog.open("jdbc:sqlite:" + db)) {
                        Ticker ticker = System::nanoTime;
                        List<CatalogSchemaRegistry> registries =
                                List.of(
                                        new CatalogSchemaRegistry(
                                                c1.schemas(), new WordFormats(), ticker),
                                        new CatalogSchemaRegistry(
                                                c2.schemas(), new WordFormats(), ticker));
                        registries.get(0).putConfig(null, "NONE", null);
                        run(random, registries);
                    }
                });
    }

    private static void run(Random random, List<CatalogSchemaRegistry> registries) {
        Map<String, Model> models = new HashMap<>();
        Map<String, Integer> idOf = new HashMap<>(); // canonical text -> id
        int maxId = 0;
        for (int step = 0; step < 30; step++) {
            CatalogSchemaRegistry r = registries.get(random.nextInt(registries.size()));
            String subject = SUBJECTS.get(random.nextInt(SUBJECTS.size()));
            Model m = models.computeIfAbsent(subject, s -> new Model());
            int op = random.nextInt(10);
            if (op < 6) {
                List<String> words = new ArrayList<>();
                for (String w : WORDS) {
                    if (random.nextInt(3) == 0) {
                        words.add(w);
                    }
                }
                if (words.isEmpty()) {
                    words.add("id");
                }
                String canonical = String.join(" ", words);
                SubjectSchema got =
                        r.register(subject, SchemaType.AVRO, "  " + canonical, List.of(), false);
                SubjectVersion live =
                        m.stored.values().stream()
                                .filter(
                                        v ->
                                                !v.deleted()
                                                        && canonical.equals(
                                                                idText(idOf, v.schemaId())))
                                .findFirst()
                                .orElse(null);
                if (live != null) {
                    assertThat(got.version()).as("already live: the same version").isEqualTo(live);
                    continue;
                }
                int id = idOf.computeIfAbsent(canonical, k -> 0);
                if (id == 0) {
                    id = ++maxId;
                    idOf.put(canonical, id);
                }
                Map<String, Integer> previous =
                        m.stored.isEmpty() ? Map.of() : m.stored.lastEntry().getValue().fieldIds();
                Map<String, Integer> fieldIds = new LinkedHashMap<>();
                for (String w : words) {
                    Integer kept = previous.get(w);
                    fieldIds.put(w, kept != null ? kept : m.nextFieldId++);
                }
                SubjectVersion expected =
                        new SubjectVersion(subject, m.nextVersion++, id, false, fieldIds);
                assertThat(got.version()).isEqualTo(expected);
                m.stored.put(expected.version(), expected);
            } else if (op < 8 && !m.stored.isEmpty()) {
                List<SubjectVersion> live =
                        m.stored.values().stream().filter(v -> !v.deleted()).toList();
                if (live.isEmpty()) {
                    continue;
                }
                SubjectVersion v = live.get(random.nextInt(live.size()));
                assertThat(r.deleteVersion(subject, Integer.toString(v.version()), false))
                        .isEqualTo(v.version());
                m.stored.put(
                        v.version(),
                        new SubjectVersion(subject, v.version(), v.schemaId(), true, v.fieldIds()));
            } else if (!m.stored.isEmpty()) {
                List<SubjectVersion> soft =
                        m.stored.values().stream().filter(SubjectVersion::deleted).toList();
                if (soft.isEmpty()) {
                    continue;
                }
                SubjectVersion v = soft.get(random.nextInt(soft.size()));
                assertThat(r.deleteVersion(subject, Integer.toString(v.version()), true))
                        .isEqualTo(v.version());
                m.stored.remove(v.version());
            }
            for (String s : SUBJECTS) {
                Model sm = models.computeIfAbsent(s, x -> new Model());
                CatalogSchemaRegistry reader = registries.get(random.nextInt(registries.size()));
                assertThat(reader.versions(s, true))
                        .as("%s at step %d", s, step)
                        .containsExactlyElementsOf(sm.stored.values());
            }
            assertThat(r.maxSchemaId()).isEqualTo(maxId);
        }
        // every id still names the schema it was given to, through either registry
        for (Map.Entry<String, Integer> e : idOf.entrySet()) {
            for (CatalogSchemaRegistry r : registries) {
                assertThat(r.schema(e.getValue()).orElseThrow().text().trim())
                        .isEqualTo(e.getKey());
            }
        }
    }

    private static String idText(Map<String, Integer> idOf, int id) {
        return idOf.entrySet().stream()
                .filter(e -> e.getValue() == id)
                .map(Map.Entry::getKey)
                .findFirst()
                .orElse(null);
    }
}
