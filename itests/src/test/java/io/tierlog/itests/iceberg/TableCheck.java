package io.tierlog.itests.iceberg;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.TopicRecord;
import io.tierlog.itests.iceberg.TableReader.LiveFile;
import io.tierlog.itests.iceberg.TableReader.TableView;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One comparison of a topic's table (read by {@link TableReader}) with tierlog's catalog (opened
 * read-only) and the bucket. The safety findings must hold at any moment, even right after a kill
 * -9: no data file twice, no (partition, offset) in two live files, a file's partition value, key
 * and offset metrics agree, and every live file is in the bucket (the table lets go of an object
 * before the bucket does). The convergence findings ({@code missing}, {@code extra}) are normal
 * while registration is behind, and must be empty once it caught up. Immutable.
 */
public record TableCheck(
        String topic,
        boolean tablePresent,
        int liveFiles,
        long liveRecords,
        int catalogObjects,
        long catalogRecords,
        List<String> safety,
        Set<String> missing,
        Set<String> extra) {

    /** Whether no safety finding was made. */
    public boolean safe() {
        return safety.isEmpty();
    }

    /** Whether the table holds exactly the catalog's objects, each once. */
    public boolean exact() {
        return safe() && tablePresent && missing.isEmpty() && extra.isEmpty();
    }

    /** Whether every one of {@code keys} still in the catalog is in the table. */
    public boolean covers(Set<String> keys, Set<String> catalogKeysNow) {
        for (String k : keys) {
            if (catalogKeysNow.contains(k) && missing.contains(k)) {
                return false;
            }
        }
        return true;
    }

    public String describe() {
        return topic
                + ": table "
                + (tablePresent ? liveFiles + " files/" + liveRecords + " records" : "absent")
                + ", catalog "
                + catalogObjects
                + " objects/"
                + catalogRecords
                + " records, missing "
                + missing.size()
                + ", extra "
                + extra.size()
                + (safety.isEmpty()
                        ? ""
                        : ", SAFETY " + safety.subList(0, Math.min(5, safety.size())));
    }

    /** Every committed object of {@code topic} in the catalog, by key. */
    public static Map<String, ColdObject> catalogObjects(Catalog catalog, String topic) {
        Map<String, ColdObject> out = new HashMap<>();
        Optional<TopicRecord> t = catalog.topic(topic);
        if (t.isEmpty()) {
            return out;
        }
        for (int p = 0; p < t.get().partitions(); p++) {
            for (ColdObject o : catalog.objects(topic, p)) {
                out.put(o.key(), o);
            }
        }
        return out;
    }

    /** Compares {@code table} (empty: no table) with {@code objects} (the catalog's, by key). */
    public static TableCheck of(
            String topic,
            Optional<TableView> table,
            Map<String, ColdObject> objects,
            TableReader reader) {
        List<String> safety = new ArrayList<>();
        Set<String> extra = new HashSet<>();
        Set<String> seen = new HashSet<>();
        Set<String> seenKeys = new HashSet<>();
        List<LiveFile> files = table.map(TableView::files).orElse(List.of());
        long liveRecords = 0;
        Map<Integer, List<LiveFile>> byPartition = new HashMap<>();
        for (LiveFile f : files) {
            liveRecords += f.records();
            seenKeys.add(f.key());
            if (!seen.add(f.location())) {
                safety.add("data file twice in the snapshot: " + f.key());
            }
            if (!reader.inBucket(f.location())) {
                safety.add("live file not in the bucket: " + f.key());
            }
            if (f.minOffset() < 0 || f.maxOffset() < f.minOffset()) {
                safety.add("no offset metrics: " + f.key());
            }
            if (f.keyFirstOffset() >= 0
                    && (f.minOffset() < f.keyFirstOffset() || f.maxOffset() > f.keyLastOffset())) {
                safety.add(
                        "offsets "
                                + f.minOffset()
                                + "-"
                                + f.maxOffset()
                                + " outside the key's range: "
                                + f.key());
            }
            ColdObject o = objects.get(f.key());
            if (o == null) {
                extra.add(f.key());
            } else {
                if (o.partition() != f.partition()) {
                    safety.add(
                            "partition_id " + f.partition() + " for an object of " + o.partition());
                }
                if (o.recordCount() != f.records()) {
                    safety.add(
                            "record count "
                                    + f.records()
                                    + " in the table, "
                                    + o.recordCount()
                                    + " in the catalog: "
                                    + f.key());
                }
            }
            byPartition.computeIfAbsent(f.partition(), p -> new ArrayList<>()).add(f);
        }
        for (Map.Entry<Integer, List<LiveFile>> e : byPartition.entrySet()) {
            List<LiveFile> sorted = new ArrayList<>(e.getValue());
            sorted.sort(Comparator.comparingLong(LiveFile::minOffset));
            for (int i = 1; i < sorted.size(); i++) {
                LiveFile a = sorted.get(i - 1);
                LiveFile b = sorted.get(i);
                if (b.minOffset() <= a.maxOffset()) {
                    safety.add(
                            "partition "
                                    + e.getKey()
                                    + " offsets "
                                    + b.minOffset()
                                    + "-"
                                    + Math.min(a.maxOffset(), b.maxOffset())
                                    + " in two files: "
                                    + a.key()
                                    + ", "
                                    + b.key());
                }
            }
        }
        Set<String> missing = new HashSet<>(objects.keySet());
        missing.removeAll(seenKeys);
        long catalogRecords = objects.values().stream().mapToLong(ColdObject::recordCount).sum();
        return new TableCheck(
                topic,
                table.isPresent(),
                files.size(),
                liveRecords,
                objects.size(),
                catalogRecords,
                List.copyOf(safety),
                Set.copyOf(missing),
                Set.copyOf(extra));
    }
}
