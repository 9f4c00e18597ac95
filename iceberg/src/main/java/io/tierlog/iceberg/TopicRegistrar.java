package io.tierlog.iceberg;

import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.TopicRecord;
import io.tierlog.common.Config;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ExpireSnapshots;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.jdbc.UncheckedSQLException;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reconciler of one topic's table: a mirror of the table's live files (read at one snapshot)
 * against the catalog's committed objects, and one validated commit per round that adds the missing
 * keys and deletes the extra ones. Rounds run under the registrar's lock (one at a time); {@link
 * #pinned} and {@link #state} are read from any thread.
 */
final class TopicRegistrar {
    private static final Logger LOG = LoggerFactory.getLogger(TopicRegistrar.class);
    static final String WRITER = "tierlog.writer";
    static final String COMMIT = "tierlog.commit";
    static final String OP = "tierlog.op";
    static final String RANGES = "tierlog.ranges";
    static final int BATCH = 1000;
    private static final int ATTEMPTS = 8;

    private final String topic;
    private final TableIdentifier id;
    private final Map<String, LiveFile> mirror = new ConcurrentHashMap<>();
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();

    /** Keys the mirror's snapshot holds more than once: the next commit re-adds them once. */
    private final Set<String> duplicates = ConcurrentHashMap.newKeySet();

    private volatile boolean loaded;
    private Long mirrorSnapshot;
    private volatile Optional<String> drift = Optional.empty();
    private volatile Optional<String> lastError = Optional.empty();
    private volatile long lastCommitMs = -1;
    private long lastExpiryMs;
    private volatile TableState state;
    int failures;
    private boolean backfilling;
    private String refusal;

    /**
     * The table as the last round read it (refreshed, not reloaded, by the next), and its catalog.
     */
    private Table cached;

    private TableCatalog cachedCatalog;

    TopicRegistrar(String topic, TableIdentifier id) {
        this.topic = topic;
        this.id = id;
        this.state =
                new TableState(
                        topic,
                        id.toString(),
                        true,
                        Optional.empty(),
                        0,
                        List.of(),
                        Optional.empty(),
                        Optional.empty(),
                        -1);
    }

    /** Result of one round: what it did, and whether more work is waiting (a backfill batch). */
    record Round(SyncResult result, boolean more) {}

    boolean loaded() {
        return loaded;
    }

    boolean pinned(String key) {
        return mirror.containsKey(key) || inFlight.contains(key);
    }

    TableState state() {
        return state;
    }

    void failed(String why) {
        lastError = Optional.of(why);
        failures++;
        publish(state.enabled(), state.partitions());
    }

    /** One round; {@code commit=false} only reads (read-only state). */
    synchronized Round round(Registrars ctx, boolean commit) {
        Config topicConfig = ctx.setup().topics().topicConfig(topic);
        boolean enabled = IcebergOptions.enabled(topicConfig);
        TopicRecord rec = ctx.setup().catalog().topic(topic).orElse(null);
        if (rec == null) {
            publish(enabled, List.of());
            return new Round(SyncResult.skipped(topic, "topic is not in the catalog"), false);
        }
        TableCatalog catalog = ctx.catalog();
        for (int attempt = 1; ; attempt++) {
            Map<String, ColdObject> desired = new LinkedHashMap<>();
            long[] catalogNext = new long[rec.partitions()];
            for (int p = 0; p < rec.partitions(); p++) {
                List<ColdObject> objs = ctx.setup().catalog().objects(topic, p);
                catalogNext[p] = objs.isEmpty() ? -1 : objs.get(objs.size() - 1).nextOffset();
                for (ColdObject o : objs) {
                    desired.put(o.key(), o);
                }
            }
            Table table = load(catalog);
            if (table != null) {
                String owner = table.properties().get(TableCreation.TOPIC_ID);
                if (owner != null && !owner.equals(rec.id().toString())) {
                    throw new TableException(
                            "table "
                                    + id
                                    + " belongs to topic id "
                                    + owner
                                    + ", not "
                                    + rec.id()
                                    + ": registration paused");
                }
            }
            refreshMirror(table, ctx.io());
            String foreign = table == null ? null : TableCreation.foreignSchema(table);
            if (foreign != null) {
                if (drift.isEmpty()) {
                    LOG.warn("table {}: {}; registration paused", id, foreign);
                }
                drift = Optional.of(foreign);
            }
            publish(enabled, partitions(catalogNext));
            if (!commit) {
                return new Round(SyncResult.skipped(topic, "read-only"), false);
            }
            if (!enabled) {
                return new Round(SyncResult.skipped(topic, "iceberg.enabled=false"), false);
            }
            if (drift.isPresent()) {
                return new Round(SyncResult.skipped(topic, "drift: " + drift.get()), false);
            }
            List<ColdObject> add = new ArrayList<>();
            for (ColdObject o : desired.values()) {
                if (!mirror.containsKey(o.key())) {
                    add.add(o);
                }
            }
            List<LiveFile> remove = new ArrayList<>();
            for (LiveFile f : mirror.values()) {
                if (!desired.containsKey(f.key())) {
                    remove.add(f);
                }
            }
            List<ColdObject> repairAdd = new ArrayList<>();
            List<LiveFile> repairRemove = new ArrayList<>();
            for (String k : duplicates) {
                LiveFile f = mirror.get(k);
                ColdObject o = desired.get(k);
                if (f != null && o != null) {
                    repairRemove.add(f); // deleting the path drops every entry of it
                    repairAdd.add(o); // and it is added once
                }
            }
            boolean repair = !repairAdd.isEmpty();
            if (add.isEmpty() && remove.isEmpty() && !repair) {
                lastError = Optional.empty();
                failures = 0;
                expire(table, topicConfig, ctx);
                publish(enabled, partitions(catalogNext));
                return new Round(new SyncResult(topic, 0, 0, false, ""), false);
            }
            add.sort(
                    Comparator.comparingInt(ColdObject::partition)
                            .thenComparingLong(ColdObject::firstOffset));
            int limit = ctx.batchLimit();
            boolean more = add.size() > limit;
            boolean backfill = more || backfilling || (add.size() > 1 && mirror.isEmpty());
            if (more) {
                add = new ArrayList<>(add.subList(0, limit));
            }
            add.addAll(repairAdd); // never cut from their removal by the batch limit
            remove.addAll(repairRemove);
            Outcome out = commitRound(ctx, rec, table, add, remove, backfill, repair);
            if (out == Outcome.DONE) {
                duplicates.clear();
                backfilling = more;
                lastError = Optional.ofNullable(refusal);
                failures = 0;
                expire(cached, topicConfig, ctx);
                publish(enabled, partitions(catalogNext));
                notifyListeners(ctx, add, remove);
                return new Round(new SyncResult(topic, add.size(), remove.size(), true, ""), more);
            }
            if (out == Outcome.NOTHING) {
                publish(enabled, partitions(catalogNext));
                return new Round(new SyncResult(topic, 0, 0, false, lastError.orElse("")), false);
            }
            if (attempt >= ATTEMPTS) {
                throw new TableException(
                        "table " + id + ": commit refused " + attempt + " times, giving up");
            }
        }
    }

    private enum Outcome {
        DONE,
        RETRY,
        NOTHING
    }

    /**
     * The table as of now: the last round's table refreshed (one catalog lookup of the metadata
     * location, metadata.json read only when it moved), or loaded; null when there is none.
     */
    private Table load(TableCatalog catalog) {
        try {
            if (cached != null && cachedCatalog == catalog) {
                cached.refresh();
                return cached;
            }
            cached = null;
            Table t = catalog.catalog().loadTable(id);
            cached = t;
            cachedCatalog = catalog;
            return t;
        } catch (NoSuchTableException e) {
            cached = null;
            return null;
        } catch (RuntimeException e) {
            cached = null;
            throw e;
        }
    }

    private void refreshMirror(Table table, ObjectStoreFileIO io) {
        Snapshot cur = table == null ? null : table.currentSnapshot();
        Long curId = cur == null ? null : cur.snapshotId();
        if (loaded && Objects.equals(curId, mirrorSnapshot)) {
            return;
        }
        for (Snapshot s = cur; s != null; ) {
            if (loaded && mirrorSnapshot != null && s.snapshotId() == mirrorSnapshot) {
                break;
            }
            if (!s.summary().containsKey(WRITER)) {
                String d =
                        "snapshot "
                                + s.snapshotId()
                                + " ("
                                + s.operation()
                                + ") was not written by tierlog";
                if (drift.isEmpty()) {
                    LOG.warn("table {}: {}; registration paused", id, d);
                }
                drift = Optional.of(d);
                break;
            }
            if (!loaded) {
                break;
            }
            s = s.parentId() == null ? null : table.snapshot(s.parentId());
        }
        Map<String, LiveFile> fresh = new HashMap<>();
        Set<String> twice = new java.util.HashSet<>();
        for (LiveFile f : TableFiles.live(table, io, cur)) {
            if (fresh.put(f.key(), f) != null) {
                twice.add(f.key());
            }
        }
        if (!twice.isEmpty()) {
            LOG.warn("table {}: {} file(s) registered more than once, repairing", id, twice.size());
        }
        duplicates.clear();
        duplicates.addAll(twice);
        mirror.putAll(fresh);
        mirror.keySet().retainAll(fresh.keySet());
        mirrorSnapshot = curId;
        loaded = true;
    }

    private Outcome commitRound(
            Registrars ctx,
            TopicRecord rec,
            Table table,
            List<ColdObject> add,
            List<LiveFile> remove,
            boolean backfill,
            boolean repair) {
        Map<String, ParquetMetadata> footers = new LinkedHashMap<>();
        Schema schema = table == null ? null : table.schema();
        Schema initialFile = null;
        List<String> refused = new ArrayList<>();
        List<ColdObject> accepted = new ArrayList<>();
        for (ColdObject o : add) {
            try {
                ParquetMetadata md =
                        ObjectFooters.read(ctx.setup().store(), o.key(), o.sizeInBytes());
                check(o, md);
                Schema fs = TableSchemas.fromFile(md.getFileMetaData().getSchema());
                if (schema == null) {
                    initialFile = initialFile == null ? fs : TableSchemas.merge(initialFile, fs);
                } else {
                    schema = TableSchemas.merge(schema, fs);
                }
                footers.put(o.key(), md);
                accepted.add(o);
            } catch (IOException | TableSchemas.IncompatibleSchemaException | TableException e) {
                refused.add(o.key() + ": " + e.getMessage());
                String k = o.key();
                remove.removeIf(f -> f.key().equals(k)); // a repair's re-add refused: keep it
            }
        }
        refusal = null;
        if (!refused.isEmpty()) {
            refusal = "refused " + refused.size() + " object(s): " + refused.get(0);
            LOG.warn("table {}: {}", id, refusal);
            lastError = Optional.of(refusal);
        }
        if (accepted.isEmpty() && remove.isEmpty()) {
            return Outcome.NOTHING;
        }
        try {
            if (table == null) {
                if (initialFile == null) {
                    return Outcome.NOTHING;
                }
                table =
                        TableCreation.create(
                                ctx.catalog(),
                                id,
                                ctx.location(topic),
                                TableSchemas.initial(initialFile),
                                TableCreation.properties(rec.id(), ctx.catalogId()));
                refreshMirror(table, ctx.io());
                return Outcome.RETRY;
            }
            if (!schema.sameSchema(table.schema())) {
                TableCreation.evolve(table, schema);
            }
        } catch (TableSchemas.IncompatibleSchemaException e) {
            throw new TableException("table " + id + ": " + e.getMessage(), e);
        } catch (ValidationException | CommitFailedException e) {
            return Outcome.RETRY;
        }
        add = accepted;
        List<DataFile> files = new ArrayList<>();
        for (ColdObject o : add) {
            files.add(TableFiles.dataFile(table, ctx.io(), o, footers.get(o.key())));
        }
        return commit(ctx, table, add, files, remove, backfill, repair);
    }

    private void check(ColdObject o, ParquetMetadata md) {
        Map<String, String> kv = md.getFileMetaData().getKeyValueMetaData();
        String p = kv.get("tierlog.partition");
        String t = kv.get("tierlog.topic");
        if ((p != null && !p.trim().equals(Integer.toString(o.partition())))
                || (t != null && !t.trim().equals(o.topic()))) {
            throw new TableException(
                    "the footer says " + t + "-" + p + ", the catalog " + o.describeRange());
        }
    }

    private Outcome commit(
            Registrars ctx,
            Table table,
            List<ColdObject> add,
            List<DataFile> files,
            List<LiveFile> remove,
            boolean backfill,
            boolean repair) {
        Set<Integer> touched = new TreeSet<>();
        add.forEach(o -> touched.add(o.partition()));
        remove.forEach(f -> touched.add(f.partition()));
        // a repair removes more entries than it adds: not data-preserving for the table
        boolean preserving =
                !repair && !add.isEmpty() && !remove.isEmpty() && dataPreserving(add, remove);
        String op =
                repair
                        ? "repair"
                        : add.isEmpty()
                                ? "retention"
                                : remove.isEmpty()
                                        ? (backfill ? "backfill" : "append")
                                        : preserving ? "replace" : "rewrite";
        String token = UUID.randomUUID().toString();
        Long base = mirrorSnapshot;
        SnapshotUpdate<?> update;
        if (preserving) {
            RewriteFiles rw = table.newRewrite();
            if (base != null) {
                rw.validateFromSnapshot(base);
            }
            remove.forEach(f -> rw.deleteFile(f.file()));
            files.forEach(rw::addFile);
            update = rw;
        } else {
            OverwriteFiles ow = table.newOverwrite();
            if (base != null) {
                ow.validateFromSnapshot(base);
            }
            ow.conflictDetectionFilter(
                    Expressions.in(TableSchemas.PARTITION_COLUMN, touched.toArray()));
            ow.validateNoConflictingData();
            ow.validateNoConflictingDeletes();
            remove.forEach(f -> ow.deleteFile(toDelete(table, f)));
            files.forEach(ow::addFile);
            update = ow;
        }
        update.set(WRITER, ctx.catalogId().toString());
        update.set(COMMIT, token);
        update.set(OP, op);
        update.set(RANGES, ranges(touched, add, remove));
        add.forEach(o -> inFlight.add(o.key()));
        remove.forEach(f -> inFlight.add(f.key()));
        try {
            ctx.hooks().beforeCommit(topic);
            HaltHook.at("before-commit");
            update.commit();
            HaltHook.at("after-commit");
            ctx.hooks().afterCommit(topic);
        } catch (ValidationException | CommitFailedException e) {
            LOG.debug("table {}: commit refused ({}), reading it again", id, e.getMessage());
            return Outcome.RETRY;
        } catch (CommitStateUnknownException | UncheckedSQLException e) {
            LOG.info("table {}: commit outcome unknown ({}), looking for it", id, e.getMessage());
            table.refresh();
            if (findToken(table, token, base) == null) {
                return Outcome.RETRY;
            }
        } finally {
            inFlight.clear();
        }
        for (LiveFile f : remove) {
            mirror.remove(f.key());
        }
        for (DataFile f : files) {
            LiveFile lf = TableFiles.liveFile(ctx.io(), f);
            mirror.put(lf.key(), lf);
        }
        Snapshot mine = findToken(table, token, base);
        mirrorSnapshot = mine == null ? -1L : mine.snapshotId();
        lastCommitMs = ctx.setup().time().milliseconds();
        LOG.debug("table {}: {} +{} -{} files", id, op, files.size(), remove.size());
        return Outcome.DONE;
    }

    /**
     * The entry to delete for {@code f}: a file found more than once is deleted by a copy without
     * its manifest location, so every manifest holding the path is filtered, not only the one the
     * scan read it from.
     */
    private DataFile toDelete(Table table, LiveFile f) {
        if (!duplicates.contains(f.key())) {
            return f.file();
        }
        return org.apache.iceberg.DataFiles.builder(table.specs().get(f.file().specId()))
                .copy(f.file())
                .build();
    }

    /** The snapshot with our token among those after {@code base}, or null. */
    private static Snapshot findToken(Table table, String token, Long base) {
        for (Snapshot s = table.currentSnapshot(); s != null; ) {
            if (base != null && s.snapshotId() == base) {
                return null;
            }
            if (token.equals(s.summary().get(COMMIT))) {
                return s;
            }
            s = s.parentId() == null ? null : table.snapshot(s.parentId());
        }
        return null;
    }

    /** Per partition, the same records over the same offsets (a merge of small objects). */
    static boolean dataPreserving(List<ColdObject> add, List<LiveFile> remove) {
        Map<Integer, long[]> a = new TreeMap<>();
        for (ColdObject o : add) {
            long[] v = a.computeIfAbsent(o.partition(), k -> new long[] {0, Long.MAX_VALUE, -1});
            v[0] += o.recordCount();
            v[1] = Math.min(v[1], o.firstOffset());
            v[2] = Math.max(v[2], o.lastOffset());
        }
        Map<Integer, long[]> r = new TreeMap<>();
        for (LiveFile f : remove) {
            if (f.firstOffset() < 0) {
                return false;
            }
            long[] v = r.computeIfAbsent(f.partition(), k -> new long[] {0, Long.MAX_VALUE, -1});
            v[0] += f.recordCount();
            v[1] = Math.min(v[1], f.firstOffset());
            v[2] = Math.max(v[2], f.lastOffset());
        }
        if (!a.keySet().equals(r.keySet())) {
            return false;
        }
        for (Map.Entry<Integer, long[]> e : a.entrySet()) {
            if (!java.util.Arrays.equals(e.getValue(), r.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** {@code p:first-next} of each touched partition as the table holds it after the commit. */
    private String ranges(Set<Integer> touched, List<ColdObject> add, List<LiveFile> remove) {
        Map<Integer, long[]> after = new TreeMap<>();
        for (int p : touched) {
            after.put(p, new long[] {Long.MAX_VALUE, 0});
        }
        Set<String> removed = new java.util.HashSet<>();
        remove.forEach(f -> removed.add(f.key()));
        for (LiveFile f : mirror.values()) {
            long[] v = after.get(f.partition());
            if (v != null && f.firstOffset() >= 0 && !removed.contains(f.key())) {
                v[0] = Math.min(v[0], f.firstOffset());
                v[1] = Math.max(v[1], f.lastOffset() + 1);
            }
        }
        for (ColdObject o : add) {
            long[] v = after.get(o.partition());
            v[0] = Math.min(v[0], o.firstOffset());
            v[1] = Math.max(v[1], o.nextOffset());
        }
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<Integer, long[]> e : after.entrySet()) {
            long[] v = e.getValue();
            if (sb.length() > 0) {
                sb.append(',');
            }
            long first = v[0] == Long.MAX_VALUE ? v[1] : v[0];
            sb.append(e.getKey()).append(':').append(first).append('-').append(v[1]);
        }
        return sb.toString();
    }

    private void expire(Table table, Config topicConfig, Registrars ctx) {
        if (table == null || table.currentSnapshot() == null) {
            return;
        }
        long retention = topicConfig.get(IcebergOptions.SNAPSHOT_RETENTION_MS).toMillis();
        long now = ctx.setup().time().milliseconds();
        if (now - lastExpiryMs < Math.max(1, retention / 10)) {
            return;
        }
        lastExpiryMs = now;
        try {
            table.expireSnapshots()
                    .expireOlderThan(now - retention)
                    .retainLast(1)
                    .cleanupLevel(ExpireSnapshots.CleanupLevel.METADATA_ONLY)
                    .commit();
        } catch (RuntimeException e) {
            LOG.info("table {}: snapshot expiry failed: {}", id, e.toString());
        }
    }

    private void notifyListeners(Registrars ctx, List<ColdObject> add, List<LiveFile> remove) {
        Set<Integer> touched = new TreeSet<>();
        add.forEach(o -> touched.add(o.partition()));
        remove.forEach(f -> touched.add(f.partition()));
        for (int p : touched) {
            long next = -1;
            for (LiveFile f : mirror.values()) {
                if (f.partition() == p) {
                    next = Math.max(next, f.lastOffset() + 1);
                }
            }
            if (next >= 0) {
                ctx.notifyRegistered(topic, p, next, lastCommitMs);
            }
        }
    }

    private List<PartitionTableState> partitions(long[] catalogNext) {
        List<PartitionTableState> out = new ArrayList<>();
        for (int p = 0; p < catalogNext.length; p++) {
            int files = 0;
            long first = -1;
            long next = -1;
            for (LiveFile f : mirror.values()) {
                if (f.partition() == p) {
                    files++;
                    first = first < 0 ? f.firstOffset() : Math.min(first, f.firstOffset());
                    next = Math.max(next, f.lastOffset() + 1);
                }
            }
            out.add(new PartitionTableState(p, files, first, next, catalogNext[p]));
        }
        return out;
    }

    private void publish(boolean enabled, List<PartitionTableState> partitions) {
        Long snap = mirrorSnapshot;
        state =
                new TableState(
                        topic,
                        id.toString(),
                        enabled,
                        snap == null || snap < 0 ? Optional.empty() : Optional.of(snap),
                        mirror.size(),
                        partitions,
                        drift,
                        lastError,
                        lastCommitMs);
    }
}
