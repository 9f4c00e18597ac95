package io.tierlog.iceberg;

import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ObjectKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * Data files of a table: building the entry of a cold object from its footer (metrics, split
 * offsets, identity partition), and listing a snapshot's live files. Stateless, so thread-safe.
 */
final class TableFiles {
    private TableFiles() {}

    static DataFile dataFile(
            Table table, ObjectStoreFileIO io, ColdObject obj, ParquetMetadata footer) {
        PartitionSpec spec = table.spec();
        return DataFiles.builder(spec)
                .withPath(io.location(obj.key()))
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(obj.sizeInBytes())
                .withPartitionPath(TableSchemas.PARTITION_COLUMN + "=" + obj.partition())
                .withMetrics(
                        ParquetUtil.footerMetrics(
                                footer, Stream.empty(), MetricsConfig.forTable(table)))
                .withSplitOffsets(ParquetUtil.getSplitOffsets(footer))
                .build();
    }

    /** The live data files of {@code snapshot} (empty for none). */
    static List<LiveFile> live(Table table, ObjectStoreFileIO io, Snapshot snapshot) {
        List<LiveFile> out = new ArrayList<>();
        if (snapshot == null) {
            return out;
        }
        try (CloseableIterable<FileScanTask> tasks =
                table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
            for (FileScanTask t : tasks) {
                out.add(liveFile(io, t.file()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    static LiveFile liveFile(ObjectStoreFileIO io, DataFile f) {
        String path = f.location();
        String key;
        try {
            key = io.key(path);
        } catch (IllegalArgumentException e) {
            key = path;
        }
        Integer p = f.partition().size() > 0 ? f.partition().get(0, Integer.class) : null;
        var parsed = ObjectKeys.parse(key);
        return new LiveFile(
                key,
                p == null ? -1 : p,
                parsed.map(ObjectKeys.ParsedKey::firstOffset).orElse(-1L),
                parsed.map(ObjectKeys.ParsedKey::lastOffset).orElse(-1L),
                f.recordCount(),
                f);
    }
}
