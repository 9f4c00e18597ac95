package io.tierlog.catalog;

import io.tierlog.common.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ties a data dir to its catalog. The file {@code <data.dir>/catalog.id} holds one line, the id
 * ({@link Catalog#id()}) of the catalog whose commits the data dir's hot segments may be deleted
 * on; it is written (atomically, fsynced with its directory) the first time the data dir uses a
 * catalog, and from then on a catalog with another id, an empty one or none at all is refused:
 * rather than start over an empty catalog and let local retention and the orphan sweeper destroy
 * the only copies of offloaded data, the server does not start and points at {@code tierlog catalog
 * rebuild}. A data dir without the file (made by a tierlog without catalog ids) adopts the
 * catalog's id on first open.
 *
 * <p>Stateless, so thread-safe (two processes binding one data dir at once both write the same id).
 */
public final class CatalogBinding {
    private static final Logger LOG = LoggerFactory.getLogger(CatalogBinding.class);

    /** The file name under the data dir. */
    public static final String FILE = "catalog.id";

    private CatalogBinding() {}

    /** The id recorded in {@code dataDir}, if any. Never creates anything. */
    public static Optional<UUID> read(Path dataDir) throws IOException {
        Path f = dataDir.resolve(FILE);
        String text;
        try {
            text = Files.readString(f, StandardCharsets.UTF_8).trim();
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        try {
            return Optional.of(UUID.fromString(text));
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt " + f + ": not a catalog id: '" + text + "'", e);
        }
    }

    /** Records {@code id} in {@code dataDir}: temp file, fsync, atomic rename, fsync of the dir. */
    public static void write(Path dataDir, UUID id) throws IOException {
        Files.createDirectories(dataDir);
        AtomicFiles.write(dataDir.resolve(FILE), (id + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Opens the catalog at {@code url} for a process that serves (or offloads from) {@code
     * dataDir}: if the data dir records a catalog id, the catalog must exist (nothing is created)
     * and carry that id; otherwise the catalog is opened (created if needed) and its id recorded.
     *
     * @throws CatalogUnavailableException with a one-line message naming {@code tierlog catalog
     *     rebuild} if the catalog is missing, empty or not the data dir's
     */
    public static Catalog openBound(Path dataDir, String url, Map<String, String> properties)
            throws IOException {
        Optional<UUID> recorded = read(dataDir);
        if (recorded.isEmpty()) {
            Catalog c = Catalog.open(url, properties, Catalog.OpenMode.CREATE);
            try {
                write(dataDir, c.id());
                LOG.info(
                        "data dir {} now belongs to catalog {} (id {})",
                        dataDir,
                        c.describe(),
                        c.id());
                return c;
            } catch (IOException | RuntimeException e) {
                c.close();
                throw e;
            }
        }
        Catalog c;
        try {
            c = Catalog.open(url, properties, Catalog.OpenMode.EXISTING);
        } catch (CatalogUnavailableException e) {
            throw new CatalogUnavailableException(refusal(dataDir, recorded.get(), e.getMessage()));
        }
        if (!recorded.get().equals(c.id())) {
            String what = "catalog " + c.describe() + " has id " + c.id();
            c.close();
            throw new CatalogUnavailableException(refusal(dataDir, recorded.get(), what));
        }
        return c;
    }

    /** The one-line startup error. */
    static String refusal(Path dataDir, UUID expected, String what) {
        return what
                + ", but data dir "
                + dataDir
                + " belongs to catalog "
                + expected
                + " (its "
                + FILE
                + "): refusing to start, since serving on another catalog would delete"
                + " offloaded data. Restore the catalog, or rebuild it from the bucket with"
                + " `tierlog catalog rebuild` (see README, 'If the catalog is lost').";
    }

    /**
     * Gives a catalog that holds nothing yet the id {@code id}: for {@code tierlog catalog
     * rebuild}, whose fresh catalog must carry the data dir's id so that the data dir accepts it.
     *
     * @throws CatalogException if the catalog holds any topic, or is not a catalog opened by {@link
     *     Catalog#open}
     */
    public static void assignId(Catalog catalog, UUID id) {
        if (!(catalog instanceof JdbcCatalog jdbc)) {
            throw new CatalogException("cannot assign an id to " + catalog);
        }
        if (!catalog.topics().isEmpty()) {
            throw new CatalogException(
                    "catalog " + catalog.describe() + " is not empty: refusing to change its id");
        }
        jdbc.assignId(id);
    }
}
