package io.tierlog.engine;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.TopicRecord;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Imports the topic registry of older releases into the catalog, once, at the first open of their
 * data dir. The old registry kept one Java properties file per topic in {@code
 * <data.dir>/meta/topics/}: {@code <stem>.properties} with {@code topic.name} (absent in 50e958a,
 * where the stem is the name), {@code topic.id} (Kafka's base64 topic id), {@code partitions} and
 * one {@code config.<key>} per override; {@code <stem>.deleting} for a deletion in progress (same
 * content); {@code <stem>.creating} for a creation never committed.
 *
 * <p>Each topic is imported with {@link Catalog#importTopic}, keeping its id (the catalog's UUID
 * holds the same 128 bits as the Kafka id, so clients that cached it see no change), partitions and
 * configs; a deletion in progress becomes a {@link DeleteMarkers} marker, which the registry then
 * finishes; an uncommitted creation is dropped (its partition folders, if any, are adopted, never
 * deleted). Only when every import has committed is the folder renamed to {@code
 * meta/topics.migrated}: a crash before that imports again at the next open, which changes nothing
 * (the import is idempotent). Unreadable files are logged and skipped (they move with the folder).
 * The moved folder stays as the rebuild's source of ids and configs until the registry has written
 * its own {@link TopicHints}. Stateless.
 */
final class LegacyTopicImport {
    private static final Logger LOG = LoggerFactory.getLogger(LegacyTopicImport.class);

    private LegacyTopicImport() {}

    /**
     * Imports {@code <dataDir>/meta/topics} if it exists; returns the number of topics imported.
     */
    static int run(Path dataDir, Catalog catalog) throws IOException {
        Path meta = dataDir.resolve("meta");
        Path dir = meta.resolve("topics");
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        DeleteMarkers markers = new DeleteMarkers(meta.resolve("topics.deleting"));
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            ds.forEach(files::add);
        }
        int imported = 0;
        for (Path f : files) {
            String fn = f.getFileName().toString();
            boolean live = fn.endsWith(".properties");
            boolean deleting = fn.endsWith(".deleting");
            if (!live && !deleting) {
                if (fn.endsWith(".creating")) {
                    LOG.warn("dropping the uncommitted creation {} of an older release", f);
                }
                continue;
            }
            try {
                TopicHints.Hint h = TopicHints.parse(f);
                String name = h.name();
                TopicRecord t = catalog.importTopic(h.id(), name, h.partitions(), h.configs());
                if (deleting) {
                    markers.write(name, t.id());
                    LOG.info("topic {} was being deleted: the deletion is finished now", name);
                } else {
                    imported++;
                }
            } catch (IOException | RuntimeException e) {
                LOG.warn("skipping unreadable topic metadata {}: {}", f, e.toString());
            }
        }
        Path moved = meta.resolve("topics.migrated");
        for (int n = 1; Files.exists(moved); n++) {
            moved = meta.resolve("topics.migrated." + n);
        }
        Files.move(dir, moved, StandardCopyOption.ATOMIC_MOVE);
        DeleteMarkers.fsyncDir(meta);
        LOG.info(
                "imported {} topics of an older release from {} into the catalog {} (ids,"
                        + " partitions and configs kept); the old files are now in {}",
                imported,
                dir,
                catalog.describe(),
                moved);
        return imported;
    }
}
