package io.tierlog.iceberg;

import io.tierlog.common.Config;
import io.tierlog.common.ConfigOption;
import io.tierlog.common.ConfigValidators;
import java.time.Duration;
import java.util.List;

/**
 * The {@code iceberg.*} configuration keys: whether each topic is an Iceberg table, which catalog
 * holds the tables and where their metadata lives. Keys marked "topic" in {@link #topicOptions()}
 * can be overridden per topic. Immutable and thread-safe.
 */
public final class IcebergOptions {

    /** The Iceberg catalog implementation. */
    public enum CatalogType {
        /** Iceberg's JdbcCatalog (SQLite by default, or PostgreSQL). */
        JDBC,
        /** An Iceberg REST catalog by URL. */
        REST
    }

    public static final ConfigOption<Boolean> ENABLED =
            ConfigOption.booleanOption("iceberg.enabled")
                    .defaultValue(true)
                    .doc(
                            "Whether a topic is an Iceberg table whose data files are its cold"
                                    + " objects, registered in place after each catalog commit."
                                    + " Turning it on for a topic with history registers every"
                                    + " existing object; turning it off pauses registration and"
                                    + " keeps the table.")
                    .build();

    public static final ConfigOption<String> NAMESPACE =
            ConfigOption.stringOption("iceberg.namespace")
                    .defaultValue("tierlog")
                    .validator(v -> v.isBlank() ? "must not be empty" : null)
                    .doc("The Iceberg namespace of the topics' tables (table name = topic name).")
                    .build();

    public static final ConfigOption<CatalogType> CATALOG_TYPE =
            ConfigOption.enumOption("iceberg.catalog.type", CatalogType.class)
                    .defaultValue(CatalogType.JDBC)
                    .doc(
                            "jdbc: Iceberg's JdbcCatalog at iceberg.catalog.uri (SQLite or"
                                    + " PostgreSQL); rest: an Iceberg REST catalog at"
                                    + " iceberg.catalog.uri.")
                    .build();

    public static final ConfigOption<String> CATALOG_URI =
            ConfigOption.stringOption("iceberg.catalog.uri")
                    .defaultValue("")
                    .doc(
                            "The Iceberg catalog: a JDBC URL (jdbc:sqlite:..., jdbc:postgresql:...)"
                                    + " or, with iceberg.catalog.type=rest, the REST catalog's URL."
                                    + " Empty means jdbc:sqlite:<data.dir>/iceberg.db.")
                    .build();

    public static final ConfigOption<String> CATALOG_NAME =
            ConfigOption.stringOption("iceberg.catalog.name")
                    .defaultValue("tierlog")
                    .validator(v -> v.isBlank() ? "must not be empty" : null)
                    .doc(
                            "The catalog's name. Iceberg's JDBC catalog keys its rows by it, so"
                                    + " readers (Spark's spark.sql.catalog.<name>) must use the"
                                    + " same name to see the tables.")
                    .build();

    public static final ConfigOption<String> WAREHOUSE =
            ConfigOption.stringOption("iceberg.warehouse")
                    .defaultValue("")
                    .doc(
                            "Where table metadata is written. Empty means"
                                    + " s3://<s3.bucket>/<s3.prefix>/iceberg. The data files"
                                    + " stay where the cold tier wrote them.")
                    .build();

    public static final ConfigOption<Duration> SNAPSHOT_RETENTION_MS =
            ConfigOption.durationOption("iceberg.snapshot.retention.ms")
                    .defaultValue(Duration.ofHours(1))
                    .validator(ConfigValidators.positive())
                    .doc(
                            "tierlog expires its tables' snapshots older than this (metadata"
                                    + " only; the current snapshot is always kept). Time travel"
                                    + " reaches this far back.")
                    .build();

    public static final ConfigOption<Boolean> DROP_TABLE_ON_TOPIC_DELETE =
            ConfigOption.booleanOption("iceberg.drop.table.on.topic.delete")
                    .defaultValue(true)
                    .doc(
                            "Deleting a topic drops its table. When false, the table is renamed"
                                    + " to <topic>__deleted_<id> and keeps its data files.")
                    .build();

    public static final ConfigOption<Duration> FRESHNESS_TARGET_MS =
            ConfigOption.durationOption("iceberg.freshness.target.ms")
                    .defaultValue(Duration.ofSeconds(60))
                    .validator(ConfigValidators.positive())
                    .doc(
                            "How soon an appended record should be queryable in the table."
                                    + " Segments of the topic roll after half of it (wall clock),"
                                    + " the lag is measured per partition and a breach is"
                                    + " counted and logged.")
                    .build();

    private IcebergOptions() {}

    /** Every {@code iceberg.*} option. */
    public static List<ConfigOption<?>> all() {
        return List.of(
                ENABLED,
                NAMESPACE,
                CATALOG_TYPE,
                CATALOG_URI,
                CATALOG_NAME,
                WAREHOUSE,
                SNAPSHOT_RETENTION_MS,
                DROP_TABLE_ON_TOPIC_DELETE,
                FRESHNESS_TARGET_MS);
    }

    /** The options a topic can override. */
    public static List<ConfigOption<?>> topicOptions() {
        return List.of(
                ENABLED, SNAPSHOT_RETENTION_MS, DROP_TABLE_ON_TOPIC_DELETE, FRESHNESS_TARGET_MS);
    }

    /** Whether {@code topicConfig} (a topic's effective config) makes the topic a table. */
    public static boolean enabled(Config topicConfig) {
        return topicConfig.get(ENABLED);
    }
}
