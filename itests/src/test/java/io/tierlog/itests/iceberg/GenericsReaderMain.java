package io.tierlog.itests.iceberg;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * An outside Java reader of a topic's table, run as a child JVM: Iceberg's {@code JdbcCatalog}
 * (named {@code tierlog}) with {@code S3FileIO}, and {@code IcebergGenerics} over every row. No
 * tierlog class is used: it reads what any Iceberg client would.
 *
 * <p>Arguments: {@code key=value} catalog properties (see {@link ReaderCatalog#settings()}), {@code
 * table=<namespace>.<name>}, and optionally {@code at=<snapshot id>} to aggregate that snapshot too
 * (time travel). Output, JSON lines on stdout:
 *
 * <ul>
 *   <li>{@code {"snapshot":<current id>,"snapshots":[ids, oldest first]}}
 *   <li>per snapshot read ({@code "at"}: {@code "current"} or the id) and partition: {@code
 *       {"at":..,"partition_id":p,"count":n,"min_offset":a,"max_offset":b,"value_bytes":s}} ({@code
 *       value_bytes} sums the non-null values' lengths)
 *   <li>per live data file of the current snapshot: {@code
 *       {"file":"s3://...","partition_id":p,"records":n}}
 * </ul>
 *
 * Not thread-safe (a main class).
 */
public final class GenericsReaderMain {
    private GenericsReaderMain() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> props = new HashMap<>();
        String table = null;
        Long at = null;
        for (String a : args) {
            int eq = a.indexOf('=');
            String k = a.substring(0, eq);
            String v = a.substring(eq + 1);
            switch (k) {
                case "table" -> table = v;
                case "at" -> at = Long.parseLong(v);
                default -> props.put(k, v);
            }
        }
        props.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.aws.s3.S3FileIO");
        props.putIfAbsent("jdbc.schema-version", "V1");
        props.putIfAbsent("s3.path-style-access", "true");
        props.putIfAbsent("client.region", "us-east-1");
        props.putIfAbsent("http-client.type", "urlconnection");
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        try (JdbcCatalog catalog = new JdbcCatalog()) {
            catalog.initialize(ReaderCatalog.NAME, props);
            Table t = catalog.loadTable(TableIdentifier.parse(table));
            List<Long> ids = new ArrayList<>();
            for (Snapshot s : t.snapshots()) {
                ids.add(s.snapshotId());
            }
            Snapshot current = t.currentSnapshot();
            out.println(
                    "{\"snapshot\":"
                            + (current == null ? "null" : current.snapshotId())
                            + ",\"snapshots\":"
                            + ids
                            + "}");
            aggregate(out, "\"current\"", IcebergGenerics.read(t));
            if (at != null) {
                aggregate(out, Long.toString(at), IcebergGenerics.read(t).useSnapshot(at));
            }
            try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
                for (FileScanTask task : tasks) {
                    out.println(
                            "{\"file\":\""
                                    + task.file().location()
                                    + "\",\"partition_id\":"
                                    + task.file().partition().get(0, Integer.class)
                                    + ",\"records\":"
                                    + task.file().recordCount()
                                    + "}");
                }
            }
        }
        out.flush();
    }

    private static void aggregate(PrintStream out, String at, IcebergGenerics.ScanBuilder scan)
            throws Exception {
        Map<Integer, long[]> byPartition = new TreeMap<>(); // count, min, max, value bytes
        try (CloseableIterable<Record> rows =
                scan.select("partition_id", "offset", "value").build()) {
            for (Record r : rows) {
                int p = (Integer) r.getField("partition_id");
                long offset = (Long) r.getField("offset");
                ByteBuffer value = (ByteBuffer) r.getField("value");
                long[] a =
                        byPartition.computeIfAbsent(
                                p, k -> new long[] {0, Long.MAX_VALUE, Long.MIN_VALUE, 0});
                a[0]++;
                a[1] = Math.min(a[1], offset);
                a[2] = Math.max(a[2], offset);
                a[3] += value == null ? 0 : value.remaining();
            }
        }
        for (Map.Entry<Integer, long[]> e : byPartition.entrySet()) {
            long[] a = e.getValue();
            out.println(
                    "{\"at\":"
                            + at
                            + ",\"partition_id\":"
                            + e.getKey()
                            + ",\"count\":"
                            + a[0]
                            + ",\"min_offset\":"
                            + a[1]
                            + ",\"max_offset\":"
                            + a[2]
                            + ",\"value_bytes\":"
                            + a[3]
                            + "}");
        }
    }
}
