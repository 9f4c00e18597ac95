package io.tierlog.engine;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.CatalogBinding;
import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.RetiredObjects;
import io.tierlog.cold.ColdTierOptions;
import io.tierlog.cold.ObjectFooter;
import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.S3ObjectStore;
import io.tierlog.common.Config;
import io.tierlog.common.EmbeddedObjectStore;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.ReadOnlyLogDir;
import io.tierlog.hot.SegmentInfo;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code tierlog catalog rebuild}: writes a fresh catalog from the objects in the bucket, for a
 * catalog that was lost (deleted, replaced by an empty one) or rolled back (restored from an old
 * backup). Every object's footer names its topic, partition and offset range ({@link
 * BucketSurvey}); per partition the objects are chained by offset as {@link ObjectCover} chooses:
 * of exact duplicates of one range (orphans of a retried upload) the one with the lowest key, of a
 * compacted object and the originals it replaced the compacted one (the originals are recorded as
 * retired, so the sweeper deletes them a grace period after the rebuild); a gap, or an overlap no
 * chain avoids, refuses the whole rebuild (nothing is written), since the catalog holds only
 * contiguous chains. Topics come from the objects, the hot log dir's partition folders (partition
 * count = highest index seen + 1) and the data dir's {@link TopicHints} (Kafka topic id, partition
 * count and configs, so clients that cached a topic id see the same one): {@code
 * meta/topic-hints/}, or for a dir upgraded by a release that kept none, the older registry files
 * in {@code meta/topics.migrated*} and {@code meta/topics/}. A damaged hint is skipped with a note;
 * its topic is rebuilt from the objects and folders with a new id and no configs.
 *
 * <p>The schema registry comes back from its copy in the bucket ({@link RegistryCopy}, kept by
 * {@link RegistryExporter}) with its exact ids, versions, field ids, counters and settings; a copy
 * document that cannot be read is skipped with a note.
 *
 * <p>The fresh catalog carries the data dir's {@code catalog.id} (a new id, recorded in the data
 * dir, if it has none), so the server accepts it. A SQLite catalog is written to a temp file and
 * renamed into place, the old file (if any) kept as {@code catalog.db.replaced-<millis>}; a
 * PostgreSQL catalog is emptied and refilled (not atomic: rerun on failure). A healthy catalog
 * (there, with the data dir's id) is replaced only with {@code force} (a rolled-back catalog looks
 * healthy). Refuses while a process holds the hot log dir's lock (a running server).
 *
 * <p>Not thread-safe (one run per call; the server must be stopped).
 */
public final class CatalogRebuild {
    /** The rebuild was refused; nothing was written. The message says why. */
    public static final class RefusedException extends IOException {
        private static final long serialVersionUID = 1L;

        RefusedException(String message) {
            super(message);
        }
    }

    /**
     * One partition's chain of objects ({@link ObjectCover}), the objects compacted ones in it
     * replaced, what else was left out (one note each) and the cold cleaned offset to record.
     */
    record PartitionPlan(
            TopicPartition tp,
            List<BucketSurvey.Found> chain,
            List<BucketSurvey.Found> retired,
            List<String> leftOut,
            long cleanedOffset,
            Optional<Long> hotStart) {
        Optional<Long> coldHighWatermark() {
            return chain.isEmpty()
                    ? Optional.empty()
                    : Optional.of(chain.get(chain.size() - 1).footer().lastOffset() + 1);
        }
    }

    /** The whole catalog to write, and what stands in the way. */
    record Plan(
            Map<String, Integer> partitions,
            Map<String, Map<String, String>> configs,
            Map<String, UUID> ids,
            List<PartitionPlan> parts,
            List<String> problems,
            List<String> notes) {}

    private CatalogRebuild() {}

    /**
     * Plans the catalog from what the bucket, the hot tier and the topic hints hold. Pure: reads
     * nothing itself.
     *
     * @param hotStarts the hot log start offset of every partition folder (empty: no segment)
     */
    static Plan plan(
            BucketSurvey survey,
            Map<TopicPartition, Optional<Long>> hotStarts,
            Map<String, TopicHints.Hint> hints) {
        Map<String, Integer> partitions = new TreeMap<>();
        Map<String, Map<String, String>> configs = new TreeMap<>();
        Map<String, UUID> ids = new TreeMap<>();
        List<String> notes = new ArrayList<>();
        Map<UUID, String> claimed = new java.util.HashMap<>();
        hints.forEach(
                (t, h) -> {
                    partitions.merge(t, Math.max(1, h.partitions()), Math::max);
                    configs.put(t, Map.copyOf(h.configs()));
                    String other = claimed.putIfAbsent(h.id(), t);
                    if (other == null) {
                        ids.put(t, h.id());
                    } else {
                        // a copied file: an id names one topic
                        notes.add(
                                "topic "
                                        + t
                                        + " gets a new id: its hint names the id of topic "
                                        + other);
                    }
                });
        survey.byPartition()
                .keySet()
                .forEach(tp -> partitions.merge(tp.topic(), tp.partition() + 1, Math::max));
        hotStarts
                .keySet()
                .forEach(tp -> partitions.merge(tp.topic(), tp.partition() + 1, Math::max));
        List<String> problems = new ArrayList<>();
        for (BucketSurvey.Unusable u : survey.unusable()) {
            notes.add("skipped unreadable object " + u);
        }
        List<PartitionPlan> parts = new ArrayList<>();
        for (Map.Entry<String, Integer> t : partitions.entrySet()) {
            for (int p = 0; p < t.getValue(); p++) {
                TopicPartition tp = new TopicPartition(t.getKey(), p);
                List<BucketSurvey.Found> found = survey.byPartition().getOrDefault(tp, List.of());
                ObjectCover.Result cover = ObjectCover.of(tp, found);
                problems.addAll(cover.problems());
                PartitionPlan pp =
                        new PartitionPlan(
                                tp,
                                cover.chain(),
                                cover.retired(),
                                cover.notes(),
                                cover.cleanedOffset(),
                                hotStarts.getOrDefault(tp, Optional.empty()));
                parts.add(pp);
                notes.addAll(pp.leftOut());
                Optional<Long> hw = pp.coldHighWatermark();
                long coldTop = hw.orElse(0L);
                if (pp.hotStart().isPresent() && pp.hotStart().get() > coldTop) {
                    notes.add(
                            "GAP "
                                    + tp
                                    + ": the cold tier ends at offset "
                                    + coldTop
                                    + " but the hot log starts at "
                                    + pp.hotStart().get()
                                    + ": offsets ["
                                    + coldTop
                                    + ", "
                                    + pp.hotStart().get()
                                    + ") are in neither tier and cannot be recovered");
                }
            }
        }
        return new Plan(partitions, configs, ids, parts, problems, notes);
    }

    /**
     * Rebuilds the catalog of the data dir {@code config} names (the settings of {@code serve}).
     *
     * @param force replace a catalog that looks healthy (there, with the data dir's id)
     * @param dryRun plan and report, write nothing
     * @return what was found and done, one line each
     * @throws RefusedException if the rebuild cannot be done safely (nothing written)
     */
    public static List<String> run(Config config, boolean force, boolean dryRun)
            throws IOException {
        config.validate(EngineOptions.ALL);
        Path dataDir = Path.of(config.get(EngineOptions.DATA_DIR)).toAbsolutePath().normalize();
        Path logDir = dataDir.resolve("log");
        String url = EngineResources.catalogUrl(config, dataDir);
        refuseIfServed(logDir);
        Optional<UUID> boundId = CatalogBinding.read(dataDir);
        List<String> out = new ArrayList<>();
        String current = currentCatalog(url, boundId);
        out.add("catalog " + url.replaceAll("\\?.*", "") + ": " + current);
        if (current.startsWith("healthy") && !force) {
            throw new RefusedException(
                    "the catalog "
                            + url.replaceAll("\\?.*", "")
                            + " is there and carries the data dir's id: refusing to replace it"
                            + " (use --force for a catalog rolled back to an old state)");
        }
        Map<TopicPartition, Optional<Long>> hotStarts =
                new TreeMap<>(
                        java.util.Comparator.comparing(TopicPartition::topic)
                                .thenComparingInt(TopicPartition::partition));
        if (Files.isDirectory(logDir)) {
            try (ReadOnlyLogDir hot = ReadOnlyLogDir.open(logDir)) {
                for (TopicPartition tp : hot.partitions()) {
                    List<SegmentInfo> segs = hot.segments(tp);
                    hotStarts.put(
                            tp,
                            segs.isEmpty()
                                    ? Optional.empty()
                                    : Optional.of(segs.get(0).baseOffset()));
                }
            }
        }
        BucketSurvey survey;
        RegistryCopy.Read registry;
        List<AutoCloseable> opened = new ArrayList<>();
        try {
            ObjectStore store = openStore(config, dataDir, opened);
            String prefix = ColdTierOptions.from(config).prefix();
            survey = BucketSurvey.of(store, prefix);
            registry = RegistryCopy.read(store, prefix);
        } finally {
            closeAll(opened);
        }
        TopicHints.Found hints = TopicHints.forRebuild(dataDir);
        out.addAll(hints.notes());
        List<LogStartOffsets.Entry> starts = logStarts(dataDir, hints.hints(), out);
        survey = withoutObjectsBelow(survey, starts);
        Plan plan = plan(survey, hotStarts, hints.hints());
        out.add(
                "bucket: "
                        + survey.listed()
                        + " keys listed, "
                        + survey.byPartition().values().stream().mapToInt(List::size).sum()
                        + " cold objects read, "
                        + survey.unusable().size()
                        + " unreadable");
        if (!plan.problems().isEmpty()) {
            throw new RefusedException(
                    "cannot rebuild a contiguous catalog from the bucket, nothing written: "
                            + String.join("; ", plan.problems()));
        }
        for (PartitionPlan pp : plan.parts()) {
            out.add(describe(pp));
        }
        out.addAll(plan.notes());
        out.add(RegistryImport.describe(registry));
        out.addAll(RegistryImport.notes(registry));
        if (dryRun) {
            out.add("dry run: nothing written");
            return out;
        }
        UUID id = boundId.orElseGet(UUID::randomUUID);
        Optional<Path> sqlite = sqliteFile(url);
        if (sqlite.isPresent()) {
            out.add(writeSqlite(sqlite.get(), id, plan, starts, hotStarts, registry, out));
        } else {
            try (Catalog c = Catalog.open(url)) {
                for (io.tierlog.catalog.TopicRecord t : c.topics()) {
                    c.deleteTopic(t.name());
                }
                CatalogBinding.assignId(c, id);
                fill(c, plan);
                applyLogStarts(c, starts, hotStarts);
                RegistryImport.into(c, registry, out);
            }
            out.add("rewrote catalog " + url.replaceAll("\\?.*", "") + " with id " + id);
        }
        if (boundId.isEmpty()) {
            CatalogBinding.write(dataDir, id);
            out.add(
                    "data dir "
                            + dataDir
                            + " bound to the new catalog ("
                            + CatalogBinding.FILE
                            + ")");
        }
        out.add(
                "rebuilt: "
                        + plan.partitions().size()
                        + " topics, "
                        + plan.parts().stream().mapToInt(pp -> pp.chain().size()).sum()
                        + " objects committed");
        return out;
    }

    private static String describe(PartitionPlan pp) {
        StringBuilder sb = new StringBuilder(pp.tp().toString()).append(": ");
        if (pp.chain().isEmpty()) {
            sb.append("no cold objects");
        } else {
            ObjectFooter first = pp.chain().get(0).footer();
            sb.append(pp.chain().size())
                    .append(" objects, offsets ")
                    .append(first.firstOffset())
                    .append("..")
                    .append(pp.coldHighWatermark().get() - 1)
                    .append(" (cold high watermark ")
                    .append(pp.coldHighWatermark().get())
                    .append(")");
        }
        if (!pp.retired().isEmpty()) {
            sb.append("; ")
                    .append(pp.retired().size())
                    .append(
                            " replaced by compacted objects, retired (deleted after the grace period)");
        }
        sb.append(pp.hotStart().map(h -> "; hot log starts at " + h).orElse("; no hot segments"));
        return sb.toString();
    }

    private static String currentCatalog(String url, Optional<UUID> boundId) {
        try (Catalog c = Catalog.open(url, Map.of(), Catalog.OpenMode.READ_ONLY)) {
            UUID id;
            try {
                id = c.id();
            } catch (io.tierlog.catalog.CatalogUnavailableException e) {
                return "present, without an id (schema older than version 4)";
            }
            if (boundId.isPresent() && !boundId.get().equals(id)) {
                return "present with id " + id + ", not the data dir's " + boundId.get();
            }
            if (c.topics().isEmpty()) {
                return "present but empty (id " + id + ")";
            }
            return "healthy (id " + id + ", " + c.topics().size() + " topics)";
        } catch (io.tierlog.catalog.CatalogException e) {
            return "not usable: " + e.getMessage();
        }
    }

    /**
     * The log starts DeleteRecords moved ({@link LogStartOffsets}), of topics whose hint carries
     * the same id (a topic created again under the name starts afresh).
     */
    private static List<LogStartOffsets.Entry> logStarts(
            Path dataDir, Map<String, TopicHints.Hint> hints, List<String> out) {
        List<LogStartOffsets.Entry> kept = new ArrayList<>();
        for (LogStartOffsets.Entry e : LogStartOffsets.readFrom(dataDir)) {
            TopicHints.Hint h = hints.get(e.tp().topic());
            if (h != null && h.id().equals(e.topicId())) {
                kept.add(e);
                out.add(e.tp() + ": log start offset " + e.offset() + " (DeleteRecords)");
            }
        }
        return kept;
    }

    /**
     * The survey without the objects lying wholly below a partition's log start: deleted records,
     * orphans a sweep may have thinned out in any order (gaps that must not stop a rebuild).
     */
    private static BucketSurvey withoutObjectsBelow(
            BucketSurvey survey, List<LogStartOffsets.Entry> starts) {
        if (starts.isEmpty()) {
            return survey;
        }
        Map<TopicPartition, Long> start = new java.util.HashMap<>();
        starts.forEach(e -> start.put(e.tp(), e.offset()));
        Map<TopicPartition, List<BucketSurvey.Found>> by = new java.util.LinkedHashMap<>();
        survey.byPartition()
                .forEach(
                        (tp, found) ->
                                by.put(
                                        tp,
                                        found.stream()
                                                .filter(
                                                        f ->
                                                                f.footer().lastOffset()
                                                                        >= start.getOrDefault(
                                                                                tp, 0L))
                                                .toList()));
        return new BucketSurvey(by, survey.unusable(), survey.listed());
    }

    private static void applyLogStarts(
            Catalog c,
            List<LogStartOffsets.Entry> starts,
            Map<TopicPartition, Optional<Long>> hotStarts) {
        for (LogStartOffsets.Entry e : starts) {
            if (c.topic(e.tp().topic())
                    .filter(t -> t.partitions() > e.tp().partition())
                    .isEmpty()) {
                continue;
            }
            long floor =
                    Math.min(
                            e.offset(),
                            hotStarts.getOrDefault(e.tp(), Optional.empty()).orElse(e.offset()));
            c.advanceLogStart(e.tp().topic(), e.tp().partition(), e.offset(), floor);
        }
    }

    private static void fill(Catalog c, Plan plan) {
        for (Map.Entry<String, Integer> t : plan.partitions().entrySet()) {
            Map<String, String> configs = plan.configs().getOrDefault(t.getKey(), Map.of());
            UUID id = plan.ids().get(t.getKey());
            if (id != null) {
                c.importTopic(id, t.getKey(), t.getValue(), configs);
            } else {
                c.createTopic(t.getKey(), t.getValue(), configs);
            }
        }
        long now = System.currentTimeMillis();
        for (PartitionPlan pp : plan.parts()) {
            for (BucketSurvey.Found f : pp.chain()) {
                ObjectFooter o = f.footer();
                c.commit(
                        new ColdObject(
                                o.topic(),
                                o.partition(),
                                o.firstOffset(),
                                o.lastOffset(),
                                o.minTimestamp(),
                                o.maxTimestamp(),
                                o.recordCount(),
                                o.sizeInBytes(),
                                o.key(),
                                f.lastModified()));
            }
            if (!pp.retired().isEmpty() || pp.cleanedOffset() > 0) {
                RetiredObjects.restore(
                        c,
                        pp.tp().topic(),
                        pp.tp().partition(),
                        pp.retired().stream().map(BucketSurvey.Found::key).toList(),
                        pp.cleanedOffset(),
                        now);
            }
        }
    }

    /** Writes the catalog next to {@code db}, then renames it into place (old file kept aside). */
    private static String writeSqlite(
            Path db,
            UUID id,
            Plan plan,
            List<LogStartOffsets.Entry> starts,
            Map<TopicPartition, Optional<Long>> hotStarts,
            RegistryCopy.Read registry,
            List<String> out)
            throws IOException {
        Path tmp = db.resolveSibling(db.getFileName() + ".rebuild");
        for (String suffix : List.of("", "-wal", "-shm", "-journal")) {
            Files.deleteIfExists(Path.of(tmp + suffix));
        }
        try (Catalog c = Catalog.open("jdbc:sqlite:" + tmp)) {
            CatalogBinding.assignId(c, id);
            fill(c, plan);
            applyLogStarts(c, starts, hotStarts);
            RegistryImport.into(c, registry, out);
        } // the last connection's close checkpoints the WAL into the file
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        String kept = "";
        if (Files.exists(db)) {
            Path aside =
                    db.resolveSibling(db.getFileName() + ".replaced-" + System.currentTimeMillis());
            for (String suffix : List.of("-wal", "-shm", "")) {
                Path f = Path.of(db + suffix);
                if (Files.exists(f)) {
                    Files.move(f, Path.of(aside + suffix));
                }
            }
            kept = "; the previous file is kept as " + aside;
        }
        Files.move(tmp, db, StandardCopyOption.ATOMIC_MOVE);
        try (FileChannel dir = FileChannel.open(db.getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            // not supported on every file system
        }
        return "wrote catalog " + db + " with id " + id + kept;
    }

    /** Refuses while another process (or this one) holds the hot log dir's lock. */
    private static void refuseIfServed(Path logDir) throws IOException {
        Path lockFile = logDir.resolve(LogManager.LOCK_FILE);
        if (!Files.exists(lockFile)) {
            return;
        }
        try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
            FileLock lock = ch.tryLock();
            if (lock == null) {
                throw served(logDir);
            }
            lock.release();
        } catch (OverlappingFileLockException e) {
            throw served(logDir);
        }
    }

    private static RefusedException served(Path logDir) {
        return new RefusedException(
                logDir + " is locked by a running process (a server?): stop it before rebuilding");
    }

    private static Optional<Path> sqliteFile(String url) {
        if (!url.startsWith("jdbc:sqlite:")) {
            return Optional.empty();
        }
        String f = url.substring("jdbc:sqlite:".length());
        int q = f.indexOf('?');
        return Optional.of(Path.of(q < 0 ? f : f.substring(0, q)).toAbsolutePath().normalize());
    }

    private static ObjectStore openStore(Config config, Path dataDir, List<AutoCloseable> opened)
            throws IOException {
        Config storeConfig = config;
        if (EngineResources.embeddedS3(config)) {
            Path s3Dir = dataDir.resolve("s3");
            if (!Files.isDirectory(s3Dir.resolve(EmbeddedObjectStore.DEFAULT_BUCKET))) {
                throw new NoSuchFileException(
                        s3Dir.toString(), null, "the embedded object store has no bucket");
            }
            EmbeddedObjectStore s3 = EmbeddedObjectStore.start(s3Dir);
            opened.add(0, s3);
            storeConfig = config.with(s3.clientConfig().asMap());
        }
        ObjectStore store = S3ObjectStore.create(storeConfig);
        opened.add(0, store);
        return store;
    }

    private static void closeAll(List<AutoCloseable> opened) throws IOException {
        IOException failure = null;
        for (AutoCloseable c : opened) {
            try {
                c.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IOException("could not close " + c, e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
