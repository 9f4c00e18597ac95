package io.tierlog.iceberg;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;

/**
 * Creating a topic's table and evolving its schema without renumbering ids: the first metadata.json
 * is written by us, then registered ({@code createTable} would assign fresh ids), and a schema
 * change is a metadata commit through the table's operations ({@code updateSchema()} would too).
 * Stateless, so thread-safe.
 */
final class TableCreation {
    static final String OWNER = "tierlog.owner";
    static final String TOPIC_ID = "tierlog.topic.id";
    static final String CATALOG_ID = "tierlog.catalog.id";

    /** The id of the schema tierlog last made current: another current schema is drift. */
    static final String SCHEMA_ID = "tierlog.schema.id";

    private TableCreation() {}

    static Map<String, String> properties(UUID topicId, UUID catalogId) {
        Map<String, String> p = new HashMap<>();
        p.put(OWNER, "tierlog");
        p.put(TOPIC_ID, topicId.toString());
        p.put(CATALOG_ID, catalogId.toString());
        p.put("write.metadata.delete-after-commit.enabled", "true");
        p.put("write.metadata.previous-versions-max", "20");
        p.put("commit.manifest.min-count-to-merge", "20");
        String m = "write.metadata.metrics.column.";
        p.put(m + "offset", "full");
        p.put(m + "timestamp", "full");
        p.put(m + "batch_last_offset", "full");
        p.put(m + "key", "none");
        p.put(m + "value", "none");
        p.put(m + "headers.element.key", "none");
        p.put(m + "headers.element.value", "none");
        return p;
    }

    static Table create(
            TableCatalog catalog,
            TableIdentifier id,
            String location,
            Schema schema,
            Map<String, String> properties) {
        Namespace ns = id.namespace();
        if (!catalog.namespaces().namespaceExists(ns)) {
            try {
                catalog.namespaces().createNamespace(ns);
            } catch (AlreadyExistsException e) {
                // created concurrently
            }
        }
        PartitionSpec spec =
                PartitionSpec.builderFor(schema).identity(TableSchemas.PARTITION_COLUMN).build();
        TableMetadata md =
                TableMetadata.buildFromEmpty(2)
                        .assignUUID()
                        .setLocation(location)
                        .setCurrentSchema(schema, schema.highestFieldId())
                        .setDefaultPartitionSpec(spec)
                        .setDefaultSortOrder(SortOrder.unsorted())
                        .setProperties(properties)
                        .build();
        md =
                TableMetadata.buildFrom(md)
                        .setProperties(Map.of(SCHEMA_ID, Integer.toString(md.currentSchemaId())))
                        .build();
        String file = location + "/metadata/00000-" + UUID.randomUUID() + ".metadata.json";
        TableMetadataParser.overwrite(md, catalog.io().newOutputFile(file));
        try {
            return catalog.catalog().registerTable(id, file);
        } catch (AlreadyExistsException e) {
            catalog.io().deleteFile(file);
            return catalog.catalog().loadTable(id);
        }
    }

    /** Makes {@code schema} the table's current schema, keeping its ids. */
    static void evolve(Table table, Schema schema) {
        TableOperations ops = ((HasTableOperations) table).operations();
        TableMetadata base = ops.refresh();
        int schemaId = nextSchemaId(base, schema);
        TableMetadata next =
                TableMetadata.buildFrom(base)
                        .setCurrentSchema(
                                schema, Math.max(base.lastColumnId(), schema.highestFieldId()))
                        .setProperties(Map.of(SCHEMA_ID, Integer.toString(schemaId)))
                        .build();
        if (next.currentSchemaId() != schemaId) {
            throw new IllegalStateException(
                    "schema id " + next.currentSchemaId() + ", expected " + schemaId);
        }
        ops.commit(base, next);
        table.refresh();
    }

    /** The id Iceberg gives {@code schema} made current: an equal schema's, or the next one. */
    private static int nextSchemaId(TableMetadata base, Schema schema) {
        int max = -1;
        for (Schema s : base.schemas()) {
            if (s.sameSchema(schema)) {
                return s.schemaId();
            }
            max = Math.max(max, s.schemaId());
        }
        return max + 1;
    }

    /**
     * Why the table's current schema is not the one tierlog last committed, or null (also for a
     * table that records none).
     */
    static String foreignSchema(Table table) {
        String mine = table.properties().get(SCHEMA_ID);
        int current = table.schema().schemaId();
        if (mine == null || mine.equals(Integer.toString(current))) {
            return null;
        }
        return "schema " + current + " is current, not tierlog's schema " + mine;
    }
}
