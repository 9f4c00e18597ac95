package io.tierlog.itests.iceberg;

import io.tierlog.cold.ObjectKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

/**
 * Reads a tierlog server's Iceberg tables the way an outside reader would, and without any tierlog
 * code: the table's current metadata location from Iceberg's JDBC catalog tables in {@code
 * <data.dir>/iceberg.db} (a read-only SQLite connection, so it runs next to a live server and after
 * a kill -9), then the metadata, manifests and live data files through {@link LocalBucketFileIO}.
 * Stateless apart from its paths, so thread-safe.
 */
public final class TableReader {
    /** One live data file of the current snapshot. */
    public record LiveFile(
            String location,
            String key,
            int partition,
            long minOffset,
            long maxOffset,
            long keyFirstOffset,
            long keyLastOffset,
            long records,
            long bytes) {}

    /** A table as of its current metadata file. */
    public record TableView(
            String name,
            String metadataLocation,
            Optional<Long> snapshotId,
            List<LiveFile> files,
            List<Snapshot> snapshots,
            Map<String, String> properties,
            Table table) {}

    private final Path icebergDb;
    private final String bucket;
    private final LocalBucketFileIO io;
    private final String catalogName;

    /**
     * @param dataDir the server's data dir ({@code iceberg.db} and the embedded S3 files)
     * @param bucket the bucket ({@code tierlog} for the embedded S3 server)
     */
    public TableReader(Path dataDir, String bucket) {
        this(dataDir.resolve("iceberg.db"), dataDir.resolve("s3"), bucket, "tierlog");
    }

    public TableReader(Path icebergDb, Path s3Root, String bucket, String catalogName) {
        this.icebergDb = icebergDb;
        this.bucket = bucket;
        this.io = new LocalBucketFileIO(s3Root);
        this.catalogName = catalogName;
    }

    public LocalBucketFileIO io() {
        return io;
    }

    /** The object key of an {@code s3://<bucket>/<key>} location (the location itself if not). */
    public String key(String location) {
        String prefix = "s3://" + bucket + "/";
        return location.startsWith(prefix) ? location.substring(prefix.length()) : location;
    }

    /** Whether the bucket holds the data file at {@code location} (the file on disk). */
    public boolean inBucket(String location) {
        return Files.isRegularFile(io.file(location));
    }

    /** Table names of {@code namespace} in the JDBC catalog (empty when there is no catalog). */
    public List<String> tables(String namespace) {
        List<String> out = new ArrayList<>();
        if (!Files.exists(icebergDb)) {
            return out;
        }
        try (Connection c = connect();
                PreparedStatement s =
                        c.prepareStatement(
                                "SELECT table_name FROM iceberg_tables WHERE catalog_name = ?"
                                        + " AND table_namespace = ? ORDER BY table_name")) {
            s.setString(1, catalogName);
            s.setString(2, namespace);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.add(r.getString(1));
                }
            }
        } catch (SQLException e) {
            if (e.getMessage() != null && e.getMessage().contains("no such table")) {
                return out;
            }
            throw new IllegalStateException("cannot list the tables of " + icebergDb, e);
        }
        return out;
    }

    /** The current metadata location of {@code namespace.table}, if the catalog has the table. */
    public Optional<String> metadataLocation(String namespace, String table) {
        if (!Files.exists(icebergDb)) {
            return Optional.empty();
        }
        try (Connection c = connect();
                PreparedStatement s =
                        c.prepareStatement(
                                "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ?"
                                        + " AND table_namespace = ? AND table_name = ?")) {
            s.setString(1, catalogName);
            s.setString(2, namespace);
            s.setString(3, table);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? Optional.ofNullable(r.getString(1)) : Optional.empty();
            }
        } catch (SQLException e) {
            if (e.getMessage() != null && e.getMessage().contains("no such table")) {
                return Optional.empty();
            }
            throw new IllegalStateException("cannot read the catalog " + icebergDb, e);
        }
    }

    /** The table's current state, or empty when the catalog does not have it. */
    public Optional<TableView> read(String namespace, String table) {
        Optional<String> location = metadataLocation(namespace, table);
        if (location.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(readAt(namespace + "." + table, location.get()));
    }

    /** The table whose current metadata file is {@code metadataLocation}. */
    public TableView readAt(String name, String metadataLocation) {
        Table t = new BaseTable(new StaticTableOperations(metadataLocation, io), name);
        return view(name, metadataLocation, t);
    }

    /** A table loaded some other way (a REST catalog), read with its own FileIO. */
    public TableView view(String name, String metadataLocation, Table t) {
        Snapshot current = t.currentSnapshot();
        List<LiveFile> files = new ArrayList<>();
        if (current != null) {
            int offsetId = t.schema().findField("offset").fieldId();
            try (CloseableIterable<FileScanTask> tasks =
                    t.newScan().includeColumnStats().planFiles()) {
                for (FileScanTask task : tasks) {
                    files.add(liveFile(task.file(), offsetId));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        List<Snapshot> snapshots = new ArrayList<>();
        t.snapshots().forEach(snapshots::add);
        return new TableView(
                name,
                metadataLocation,
                Optional.ofNullable(current).map(Snapshot::snapshotId),
                files,
                snapshots,
                Map.copyOf(t.properties()),
                t);
    }

    private LiveFile liveFile(DataFile f, int offsetId) {
        String location = f.location();
        String key = key(location);
        Integer p = f.partition().size() > 0 ? f.partition().get(0, Integer.class) : null;
        long min = bound(f.lowerBounds(), offsetId);
        long max = bound(f.upperBounds(), offsetId);
        Optional<ObjectKeys.ParsedKey> parsed = ObjectKeys.parse(key);
        return new LiveFile(
                location,
                key,
                p == null ? -1 : p,
                min,
                max,
                parsed.map(ObjectKeys.ParsedKey::firstOffset).orElse(-1L),
                parsed.map(ObjectKeys.ParsedKey::lastOffset).orElse(-1L),
                f.recordCount(),
                f.fileSizeInBytes());
    }

    private static long bound(Map<Integer, java.nio.ByteBuffer> bounds, int id) {
        if (bounds == null || bounds.get(id) == null) {
            return -1;
        }
        Object v = Conversions.fromByteBuffer(Types.LongType.get(), bounds.get(id));
        return ((Number) v).longValue();
    }

    private Connection connect() throws SQLException {
        // As tierlog's own read-only opens: mode=ro, and immutable=1 when no writer's WAL files
        // are there (a read-only connection could not create them).
        boolean wal = Files.exists(Path.of(icebergDb + "-wal"));
        boolean shm = Files.exists(Path.of(icebergDb + "-shm"));
        String url =
                "jdbc:sqlite:"
                        + icebergDb.toAbsolutePath().toUri()
                        + (wal && shm ? "?mode=ro" : "?mode=ro&immutable=1");
        return DriverManager.getConnection(url);
    }
}
