package io.tierlog.engine;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.TopicRecord;
import io.tierlog.iceberg.TableAudit;
import io.tierlog.iceberg.TopicTables;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code verify}'s check of each Iceberg table against tierlog's catalog ({@link
 * TopicTables#audit}), as {@link Violation}s. A catalog object missing from the table counts as a
 * violation only once it was committed longer than the topic's freshness target ago: a younger one
 * is registration lag (the registrar adds it within the target), reported in {@code notes}.
 * Stateless.
 */
final class TableChecks {
    private TableChecks() {}

    /**
     * Audits every topic of {@code catalog} that is a table now.
     *
     * @param targetMs each topic's {@code iceberg.freshness.target.ms}
     * @param nowMs the clock's now (epoch ms), against the objects' commit times
     * @param notes where the lag findings go, one line each
     */
    static void check(
            TopicTables tables,
            Catalog catalog,
            ToLongFunction<String> targetMs,
            long nowMs,
            List<Violation> out,
            List<String> notes) {
        for (TopicRecord t : catalog.topics()) {
            if (!tables.enabled(t.name())) {
                continue;
            }
            TableAudit audit;
            try {
                audit = tables.audit(t.name());
            } catch (RuntimeException e) {
                out.add(
                        new Violation(
                                new TopicPartition(t.name(), 0),
                                Violation.Kind.ICEBERG_TABLE_UNAVAILABLE,
                                "table of topic " + t.name() + " unreadable: " + e));
                continue;
            }
            Map<String, ColdObject> objects = new HashMap<>();
            for (int p = 0; p < t.partitions(); p++) {
                for (ColdObject o : catalog.objects(t.name(), p)) {
                    objects.put(o.key(), o);
                }
            }
            map(audit, objects, targetMs.applyAsLong(t.name()), nowMs, out, notes);
        }
    }

    /** The violations (and lag notes) of one topic's audit; {@code objects} by key. */
    static void map(
            TableAudit audit,
            Map<String, ColdObject> objects,
            long targetMs,
            long nowMs,
            List<Violation> out,
            List<String> notes) {
        String topic = audit.topic();
        TopicPartition whole = new TopicPartition(topic, 0);
        if (!audit.checked()) {
            out.add(
                    new Violation(
                            whole,
                            Violation.Kind.ICEBERG_TABLE_UNAVAILABLE,
                            "table "
                                    + audit.table()
                                    + " of topic "
                                    + topic
                                    + " could not be checked: "
                                    + audit.unavailable().orElse("unknown reason")));
            return;
        }
        int lagging = 0;
        for (String key : audit.missing()) {
            ColdObject o = objects.get(key);
            TopicPartition tp = o == null ? whole : new TopicPartition(topic, o.partition());
            long age = o == null ? Long.MAX_VALUE : nowMs - o.createdAt().toEpochMilli();
            if (age <= targetMs) {
                lagging++; // registration lag, not loss
                continue;
            }
            out.add(
                    new Violation(
                            tp,
                            Violation.Kind.ICEBERG_TABLE_MISSING_OBJECT,
                            key
                                    + (o == null
                                            ? ""
                                            : " (offsets "
                                                    + o.firstOffset()
                                                    + ".."
                                                    + o.lastOffset()
                                                    + ", committed "
                                                    + age
                                                    + " ms ago)")
                                    + " is not in table "
                                    + audit.table()
                                    + " (freshness target "
                                    + targetMs
                                    + " ms)"));
        }
        if (lagging > 0) {
            notes.add(
                    "table "
                            + audit.table()
                            + ": "
                            + lagging
                            + " objects committed within the freshness target are not registered"
                            + " yet (registration lag)");
        }
        for (String path : audit.extra()) {
            out.add(
                    new Violation(
                            whole,
                            Violation.Kind.ICEBERG_TABLE_EXTRA_FILE,
                            "table "
                                    + audit.table()
                                    + " holds "
                                    + path
                                    + ", not a committed object of the catalog"));
        }
        for (String path : audit.duplicates()) {
            out.add(
                    new Violation(
                            whole,
                            Violation.Kind.ICEBERG_TABLE_DUPLICATE,
                            "table " + audit.table() + " holds " + path + " more than once"));
        }
        audit.drift()
                .ifPresent(
                        d ->
                                out.add(
                                        new Violation(
                                                whole,
                                                Violation.Kind.ICEBERG_TABLE_DRIFT,
                                                "table "
                                                        + audit.table()
                                                        + " was written by someone else"
                                                        + " (registration paused): "
                                                        + d)));
    }
}
