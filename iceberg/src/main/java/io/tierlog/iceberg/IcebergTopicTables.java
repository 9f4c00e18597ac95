package io.tierlog.iceberg;

import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.TopicRecord;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.ObjectKeys;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registrar behind {@link TopicTables}: one thread ({@code tierlog-iceberg}) runs each topic's
 * {@link TopicRegistrar} rounds, woken (coalesced) by {@link #onCommitted}, retried with backoff on
 * failure, and every minute for every topic. Read-only, it starts no thread and writes nothing.
 * Thread-safe.
 */
final class IcebergTopicTables implements TopicTables, Registrars {
    private static final Logger LOG = LoggerFactory.getLogger(IcebergTopicTables.class);
    private static final long FULL_PASS_MS = 60_000;
    private static final java.util.regex.Pattern RELEASED_NAME =
            java.util.regex.Pattern.compile(".+__deleted_[0-9a-f]{8}");

    private final TableSetup setup;
    private final boolean readOnly;
    private final ObjectStoreFileIO io;
    private final Namespace namespace;
    private final Map<String, TopicRegistrar> registrars = new ConcurrentHashMap<>();

    /** Topics whose table was dropped as the topic is deleted: by topic id, no longer pinned. */
    private final Map<String, UUID> dropped = new ConcurrentHashMap<>();

    /** Tables renamed to {@code <topic>__deleted_<id>}: their files stay pinned. */
    private final Map<String, TopicRegistrar> released = new ConcurrentHashMap<>();

    private final List<RegistrationListener> listeners = new CopyOnWriteArrayList<>();
    private final Map<String, Long> due = new HashMap<>();
    private final Object lock = new Object();
    private final Thread thread;
    private volatile CommitHooks hooks = CommitHooks.NONE;

    /** The catalog's topics as of the last full pass (null before it): others are not pinned. */
    private volatile Set<String> knownTopics;

    /**
     * Live file keys of the released tables ({@code tierlog.owner=released}, our catalog id) as of
     * the last listing; null until one listing has succeeded, and until then every object of a
     * topic the catalog does not know is pinned.
     */
    private volatile Set<String> releasedKeys;

    private volatile int batchLimit = TopicRegistrar.BATCH;
    private TableCatalog catalog;
    private volatile boolean closed;

    private IcebergTopicTables(TableSetup setup, boolean readOnly) {
        this.setup = setup;
        this.readOnly = readOnly;
        this.io = new ObjectStoreFileIO(setup.store(), setup.bucket());
        this.namespace = Namespace.of(setup.config().get(IcebergOptions.NAMESPACE));
        this.thread = new Thread(this::run, "tierlog-iceberg");
    }

    static TopicTables open(TableSetup setup, boolean readOnly) {
        return open(setup, readOnly, !readOnly);
    }

    /** As {@link #open(TableSetup, boolean)}; {@code background=false}: rounds only by sync. */
    static IcebergTopicTables open(TableSetup setup, boolean readOnly, boolean background) {
        IcebergTopicTables t = new IcebergTopicTables(setup, readOnly);
        if (!readOnly) {
            try {
                t.catalog();
                t.refreshReleased();
            } catch (TableException e) {
                LOG.warn("iceberg catalog unavailable (retrying): {}", e.getMessage());
            }
        }
        if (background) {
            t.thread.setDaemon(true);
            t.thread.start();
        }
        return t;
    }

    /** Test seam: see {@link CommitHooks}. */
    void setHooks(CommitHooks hooks) {
        this.hooks = hooks;
    }

    // ---- Registrars

    @Override
    public TableSetup setup() {
        return setup;
    }

    @Override
    public synchronized TableCatalog catalog() {
        if (closed) {
            throw new TableException("the topic tables are closed");
        }
        if (catalog == null) {
            try {
                catalog = TableCatalogs.open(setup, io, readOnly);
            } catch (TableException e) {
                throw e;
            } catch (RuntimeException e) {
                throw new TableException("cannot open the iceberg catalog: " + e, e);
            }
        }
        return catalog;
    }

    @Override
    public ObjectStoreFileIO io() {
        return io;
    }

    @Override
    public UUID catalogId() {
        return setup.catalog().id();
    }

    @Override
    public String location(String topic) {
        return TableCatalogs.warehouse(setup) + "/" + namespace + "/" + topic;
    }

    @Override
    public int batchLimit() {
        return batchLimit;
    }

    /** Test seam: a smaller backfill batch. */
    void setBatchLimit(int limit) {
        this.batchLimit = limit;
    }

    @Override
    public CommitHooks hooks() {
        return hooks;
    }

    @Override
    public void notifyRegistered(String topic, int partition, long nextOffset, long atMs) {
        for (RegistrationListener l : listeners) {
            try {
                l.onRegistered(topic, partition, nextOffset, atMs);
            } catch (RuntimeException e) {
                LOG.warn("registration listener failed", e);
            }
        }
    }

    // ---- TopicTables

    @Override
    public boolean enabled(String topic) {
        return IcebergOptions.enabled(setup.topics().topicConfig(topic));
    }

    @Override
    public void onCommitted(String topic, int partition) {
        if (readOnly || closed) {
            return;
        }
        try {
            long target =
                    setup.topics()
                            .topicConfig(topic)
                            .get(IcebergOptions.FRESHNESS_TARGET_MS)
                            .toMillis();
            schedule(topic, setup.time().milliseconds() + Math.min(1000, target / 10));
        } catch (RuntimeException e) {
            LOG.warn("cannot schedule the table of {}: {}", topic, e.toString());
        }
    }

    private void schedule(String topic, long atMs) {
        synchronized (lock) {
            Long cur = due.get(topic);
            if (cur == null || atMs < cur) {
                due.put(topic, atMs);
                lock.notifyAll();
            }
        }
    }

    private TopicRegistrar registrar(String topic) {
        return registrars.computeIfAbsent(
                topic, t -> new TopicRegistrar(t, TableIdentifier.of(namespace, t)));
    }

    @Override
    public SyncResult sync(String topic) {
        if (readOnly) {
            return SyncResult.skipped(topic, "read-only");
        }
        int added = 0;
        int removed = 0;
        boolean committed = false;
        while (true) {
            TopicRegistrar.Round r = runRound(topic, true);
            added += r.result().added();
            removed += r.result().removed();
            committed |= r.result().committed();
            if (r.result().skipped().startsWith("drift")) {
                throw new TableException("table of " + topic + ": " + r.result().skipped());
            }
            if (!r.more()) {
                String skipped = committed ? "" : r.result().skipped();
                return new SyncResult(topic, added, removed, committed, skipped);
            }
        }
    }

    private TopicRegistrar.Round runRound(String topic, boolean commit) {
        UUID gone = dropped.get(topic);
        if (gone != null) {
            Optional<TopicRecord> now = setup.catalog().topic(topic);
            if (now.isEmpty() || now.get().id().equals(gone)) {
                return new TopicRegistrar.Round(
                        SyncResult.skipped(topic, "the topic is being deleted"), false);
            }
            dropped.remove(topic, gone); // a new topic of that name
        }
        TopicRegistrar reg = registrar(topic);
        try {
            return reg.round(this, commit);
        } catch (TableException e) {
            reg.failed(e.getMessage());
            throw e;
        } catch (RuntimeException e) {
            reg.failed(e.toString());
            throw new TableException("table of " + topic + ": " + e, e);
        }
    }

    @Override
    public List<SyncResult> syncAll() {
        List<SyncResult> out = new ArrayList<>();
        for (TopicRecord t : setup.catalog().topics()) {
            if (!enabled(t.name())) {
                continue;
            }
            try {
                out.add(sync(t.name()));
            } catch (TableException e) {
                LOG.warn("table of {}: {}", t.name(), e.getMessage());
            }
        }
        return out;
    }

    @Override
    public Optional<TableState> state(String topic) {
        if (readOnly) {
            if (setup.catalog().topic(topic).isEmpty()) {
                return Optional.empty();
            }
            try {
                if (!catalog().available()) {
                    return Optional.empty();
                }
                runRound(topic, false);
            } catch (TableException e) {
                // reported by the state
            }
            TopicRegistrar reg = registrars.get(topic);
            return reg == null ? Optional.empty() : Optional.of(reg.state());
        }
        // in memory only: the append path asks it (freshness), and must never wait on a catalog
        TopicRegistrar reg = registrars.get(topic);
        return reg == null ? Optional.empty() : Optional.of(reg.state());
    }

    @Override
    public boolean pinned(String key) {
        if (readOnly) {
            return false;
        }
        for (TopicRegistrar r : registrars.values()) {
            if (r.pinned(key)) {
                return true;
            }
        }
        for (TopicRegistrar r : released.values()) {
            if (r.pinned(key)) {
                return true;
            }
        }
        Set<String> releasedNow = releasedKeys;
        if (releasedNow != null && releasedNow.contains(key)) {
            return true;
        }
        Optional<ObjectKeys.ParsedKey> parsed = ObjectKeys.parse(key);
        if (parsed.isEmpty()) {
            return false;
        }
        String topic = parsed.get().topic();
        if (dropped.containsKey(topic)) {
            return false;
        }
        TopicRegistrar r = registrars.get(topic);
        if (r != null && r.loaded()) {
            return false;
        }
        if (r == null) {
            Set<String> known = knownTopics;
            boolean unknown;
            try {
                unknown =
                        known != null
                                ? !known.contains(topic)
                                : setup.catalog().topic(topic).isEmpty();
            } catch (RuntimeException e) {
                return true;
            }
            if (unknown) {
                // a deleted topic's orphans, unless a released table may hold them
                return releasedNow == null;
            }
        }
        try {
            return enabled(topic);
        } catch (RuntimeException e) {
            return true;
        }
    }

    /**
     * Lists the namespace's released tables of our catalog and pins their live files; a failure
     * keeps the previous set (or the safe default before the first listing).
     */
    void refreshReleased() {
        try {
            TableCatalog c = catalog();
            if (!c.available()) {
                return;
            }
            Set<String> keys = new HashSet<>();
            List<TableIdentifier> ids;
            try {
                ids = c.catalog().listTables(namespace);
            } catch (NoSuchNamespaceException e) {
                ids = List.of();
            }
            for (TableIdentifier id : ids) {
                if (!RELEASED_NAME.matcher(id.name()).matches()) {
                    continue;
                }
                Table table;
                try {
                    table = c.catalog().loadTable(id);
                } catch (NoSuchTableException e) {
                    continue; // dropped meanwhile
                }
                Map<String, String> props = table.properties();
                if (!"released".equals(props.get(TableCreation.OWNER))
                        || !catalogId().toString().equals(props.get(TableCreation.CATALOG_ID))) {
                    continue;
                }
                for (LiveFile f : TableFiles.live(table, io, table.currentSnapshot())) {
                    keys.add(f.key());
                }
            }
            releasedKeys = keys;
        } catch (RuntimeException e) {
            LOG.warn(
                    "cannot list the released tables (objects of unknown topics stay pinned): {}",
                    e.toString());
        }
    }

    @Override
    public void dropTable(String topic, UUID topicId) {
        if (readOnly) {
            throw new TableException("read-only: cannot drop the table of " + topic);
        }
        TableIdentifier id = TableIdentifier.of(namespace, topic);
        TopicRegistrar reg = registrar(topic);
        synchronized (reg) {
            TableCatalog c = catalog();
            Table table;
            try {
                table = c.catalog().loadTable(id);
            } catch (NoSuchTableException e) {
                dropped.put(topic, topicId);
                registrars.remove(topic);
                return;
            } catch (RuntimeException e) {
                throw new TableException("cannot load table " + id + ": " + e, e);
            }
            String owner = table.properties().get(TableCreation.TOPIC_ID);
            if (owner != null && !owner.equals(topicId.toString())) {
                LOG.info("table {} belongs to topic id {}, not {}: left alone", id, owner, topicId);
                return;
            }
            try {
                if (setup.topics()
                        .topicConfig(topic)
                        .get(IcebergOptions.DROP_TABLE_ON_TOPIC_DELETE)) {
                    String metadata = io.key(table.location()) + "/metadata/";
                    c.catalog().dropTable(id, false);
                    for (ObjectInfo o : setup.store().list(metadata)) {
                        setup.store().delete(o.key());
                    }
                    LOG.info("dropped table {}", id);
                    dropped.put(topic, topicId);
                    registrars.remove(topic);
                } else {
                    reg.round(this, false); // the mirror that keeps the released files pinned
                    String hex = topicId.toString().replace("-", "").substring(0, 8);
                    TableIdentifier to =
                            TableIdentifier.of(
                                    namespace, topic + "__deleted_" + hex.toLowerCase(Locale.ROOT));
                    c.catalog().renameTable(id, to);
                    c.catalog()
                            .loadTable(to)
                            .updateProperties()
                            .set(TableCreation.OWNER, "released")
                            .commit();
                    LOG.info("table {} renamed to {} (its objects are kept)", id, to);
                    released.put(to.name(), reg);
                    dropped.put(topic, topicId);
                    registrars.remove(topic);
                }
            } catch (IOException | RuntimeException e) {
                throw new TableException("cannot drop table " + id + ": " + e, e);
            }
        }
    }

    @Override
    public TableAudit audit(String topic) {
        TableIdentifier id = TableIdentifier.of(namespace, topic);
        String name = id.toString();
        TableCatalog c;
        try {
            c = catalog();
        } catch (TableException e) {
            return unavailable(topic, name, e.getMessage());
        }
        if (!c.available()) {
            return unavailable(topic, name, "no iceberg catalog");
        }
        Set<String> desired = new HashSet<>();
        TopicRecord rec = setup.catalog().topic(topic).orElse(null);
        if (rec != null) {
            for (int p = 0; p < rec.partitions(); p++) {
                for (ColdObject o : setup.catalog().objects(topic, p)) {
                    desired.add(o.key());
                }
            }
        }
        Table table;
        try {
            table = c.catalog().loadTable(id);
        } catch (NoSuchTableException e) {
            return new TableAudit(
                    topic,
                    name,
                    true,
                    Optional.empty(),
                    sorted(desired),
                    List.of(),
                    List.of(),
                    Optional.empty());
        } catch (RuntimeException e) {
            return unavailable(topic, name, "cannot load " + name + ": " + e);
        }
        Map<String, Integer> seen = new HashMap<>();
        try {
            for (LiveFile f : TableFiles.live(table, io, table.currentSnapshot())) {
                seen.merge(f.key(), 1, Integer::sum);
            }
        } catch (RuntimeException e) {
            return unavailable(topic, name, "cannot read " + name + ": " + e);
        }
        List<String> missing = new ArrayList<>();
        for (String k : desired) {
            if (!seen.containsKey(k)) {
                missing.add(k);
            }
        }
        List<String> extra = new ArrayList<>();
        List<String> dups = new ArrayList<>();
        for (Map.Entry<String, Integer> e : seen.entrySet()) {
            if (!desired.contains(e.getKey())) {
                extra.add(e.getKey());
            }
            if (e.getValue() > 1) {
                dups.add(e.getKey());
            }
        }
        int foreign = 0;
        Snapshot lastForeign = null;
        for (Snapshot s : table.snapshots()) {
            if (!s.summary().containsKey(TopicRegistrar.WRITER)) {
                foreign++;
                lastForeign = s;
            }
        }
        String foreignSchema = TableCreation.foreignSchema(table);
        Optional<String> drift =
                foreign == 0
                        ? Optional.ofNullable(foreignSchema)
                        : Optional.of(
                                foreign
                                        + " foreign snapshot(s), the latest "
                                        + lastForeign.snapshotId()
                                        + " ("
                                        + lastForeign.operation()
                                        + ")");
        return new TableAudit(
                topic,
                name,
                true,
                Optional.empty(),
                sorted(missing),
                sorted(extra),
                sorted(dups),
                drift);
    }

    private static List<String> sorted(java.util.Collection<String> c) {
        List<String> l = new ArrayList<>(c);
        java.util.Collections.sort(l);
        return l;
    }

    private static TableAudit unavailable(String topic, String name, String why) {
        return new TableAudit(
                topic,
                name,
                false,
                Optional.of(why),
                List.of(),
                List.of(),
                List.of(),
                Optional.empty());
    }

    @Override
    public void addListener(RegistrationListener listener) {
        listeners.add(listener);
    }

    @Override
    public void close() {
        closed = true;
        if (thread.isAlive()) {
            synchronized (lock) {
                lock.notifyAll();
            }
            thread.interrupt();
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (this) {
            if (catalog != null) {
                catalog.close();
                catalog = null;
            }
        }
    }

    // ---- the registrar thread

    private void run() {
        long nextFullPass = 0;
        while (!closed) {
            try {
                long now = setup.time().milliseconds();
                if (now >= nextFullPass) {
                    nextFullPass = now + FULL_PASS_MS;
                    List<TopicRecord> all = setup.catalog().topics();
                    Set<String> names = new HashSet<>();
                    all.forEach(t -> names.add(t.name()));
                    knownTopics = names;
                    refreshReleased();
                    for (TopicRecord t : all) {
                        if (enabled(t.name())) {
                            schedule(t.name(), now);
                        }
                    }
                }
                String topic = null;
                synchronized (lock) {
                    long first = Long.MAX_VALUE;
                    for (Map.Entry<String, Long> e : due.entrySet()) {
                        if (e.getValue() < first) {
                            first = e.getValue();
                            topic = e.getKey();
                        }
                    }
                    long wait = Math.min(nextFullPass, first) - now;
                    if (wait > 0) {
                        lock.wait(Math.min(wait, 1000));
                        continue;
                    }
                    if (topic != null) {
                        due.remove(topic);
                    }
                }
                if (topic != null) {
                    runScheduled(topic);
                }
            } catch (InterruptedException e) {
                if (closed) {
                    return;
                }
            } catch (RuntimeException e) {
                LOG.warn("iceberg registrar: {}", e.toString());
                sleepQuietly(1000);
            }
        }
    }

    private void runScheduled(String topic) {
        TopicRegistrar reg = registrar(topic);
        try {
            TopicRegistrar.Round r = runRound(topic, true);
            if (r.more()) {
                schedule(topic, setup.time().milliseconds());
            }
        } catch (TableException e) {
            if (closed) {
                return;
            }
            long backoff = Math.min(60_000, 1000L << Math.min(6, Math.max(0, reg.failures - 1)));
            LOG.warn("table of {}: {} (retrying in {} ms)", topic, e.getMessage(), backoff);
            schedule(topic, setup.time().milliseconds() + backoff);
        }
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
