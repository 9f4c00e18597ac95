package io.tierlog.itests.iceberg;

import io.tierlog.itests.iceberg.OutsideReadersIT.PartitionStats;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;

/**
 * A table shaped like a topic's ({@code partition_id} identity-partitioned, {@code offset}, {@code
 * value}) written with Iceberg's own generic Parquet writer and S3FileIO, in two appends: what the
 * outside readers are checked on without tierlog in the way. Not thread-safe.
 */
final class IcebergApiFixture {
    static final Schema SCHEMA =
            new Schema(
                    Types.NestedField.required(500, "partition_id", Types.IntegerType.get()),
                    Types.NestedField.required(1, "offset", Types.LongType.get()),
                    Types.NestedField.optional(4, "value", Types.BinaryType.get()));

    /** What was written, and the rows of the first snapshot. */
    record Written(Map<Integer, PartitionStats> stats, long firstSnapshot, long firstCount) {}

    private IcebergApiFixture() {}

    static Written write(ReaderCatalog c, String table) throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put(CatalogProperties.URI, c.uri());
        props.put(CatalogProperties.WAREHOUSE_LOCATION, c.warehouse());
        props.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.aws.s3.S3FileIO");
        props.put("jdbc.schema-version", "V1");
        props.put("s3.endpoint", c.s3Endpoint());
        props.put("s3.access-key-id", c.accessKey());
        props.put("s3.secret-access-key", c.secretKey());
        props.put("s3.path-style-access", "true");
        props.put("client.region", "us-east-1");
        props.put("http-client.type", "urlconnection");
        Map<Integer, long[]> acc = new TreeMap<>();
        Random rnd = new Random(42);
        long firstSnapshot;
        long firstCount = 0;
        try (JdbcCatalog catalog = new JdbcCatalog()) {
            catalog.initialize(ReaderCatalog.NAME, props);
            TableIdentifier id = TableIdentifier.parse(table);
            catalog.createNamespace(Namespace.of(id.namespace().levels()));
            PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("partition_id").build();
            Table t = catalog.createTable(id, SCHEMA, spec);
            long[] next = new long[3];
            for (int round = 0; round < 2; round++) {
                var append = t.newAppend();
                for (int p = 0; p < 3; p++) {
                    int rows = 500 + rnd.nextInt(500);
                    append.appendFile(file(t, p, next[p], rows, rnd, acc));
                    next[p] += rows;
                    if (round == 0) {
                        firstCount += rows;
                    }
                }
                append.commit();
                t.refresh();
            }
            firstSnapshot = t.snapshots().iterator().next().snapshotId();
        }
        Map<Integer, PartitionStats> stats = new TreeMap<>();
        acc.forEach((p, a) -> stats.put(p, new PartitionStats(p, a[0], a[1], a[2], a[3])));
        return new Written(stats, firstSnapshot, firstCount);
    }

    private static DataFile file(
            Table t, int p, long from, int rows, Random rnd, Map<Integer, long[]> acc)
            throws Exception {
        Schema schema = t.schema(); // createTable gave the fields fresh ids
        GenericRecord r = GenericRecord.create(schema);
        PartitionKey key = new PartitionKey(t.spec(), schema);
        r.setField("partition_id", p);
        key.partition(r);
        String path =
                t.location() + "/data/partition_id=" + p + "/" + UUID.randomUUID() + ".parquet";
        DataWriter<GenericRecord> w =
                Parquet.writeData(t.io().newOutputFile(path))
                        .schema(schema)
                        .createWriterFunc(GenericParquetWriter::create)
                        .withSpec(t.spec())
                        .withPartition(key)
                        .overwrite()
                        .build();
        long[] a = acc.computeIfAbsent(p, k -> new long[] {0, Long.MAX_VALUE, Long.MIN_VALUE, 0});
        try (w) {
            for (long o = from; o < from + rows; o++) {
                GenericRecord row = GenericRecord.create(schema);
                row.setField("partition_id", p);
                row.setField("offset", o);
                byte[] v = null;
                if (rnd.nextInt(17) != 0) {
                    v = new byte[rnd.nextInt(200)];
                    rnd.nextBytes(v);
                }
                row.setField("value", v == null ? null : ByteBuffer.wrap(v));
                w.write(row);
                a[0]++;
                a[1] = Math.min(a[1], o);
                a[2] = Math.max(a[2], o);
                a[3] += v == null ? 0 : v.length;
            }
        }
        return w.toDataFile();
    }
}
