package io.tierlog.bench.iceberg;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ColdTierOptions;
import io.tierlog.cold.ObjectKeys;
import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.ParquetLogWriter;
import io.tierlog.cold.S3ObjectStore;
import io.tierlog.cold.WrittenObject;
import io.tierlog.common.Config;
import io.tierlog.common.Time;
import io.tierlog.iceberg.SyncResult;
import io.tierlog.iceberg.TableSetup;
import io.tierlog.iceberg.TopicTables;
import io.tierlog.s3.embedded.EmbeddedS3Server;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;

/**
 * What registering cold objects in their Iceberg table costs, against what offloading them costs,
 * on the embedded default (s3proxy in process, SQLite catalogs): the whole process's CPU time
 * (s3proxy and SQLite included) while each object is written, uploaded and committed (offload),
 * then while its table commit is made (registration), one object per round as a freshness-driven
 * trickle makes them; then a backfill of many objects in one round.
 *
 * <p>Arguments: {@code objects} (per-object rounds, default 100), {@code recordsPerObject} (default
 * 1000), {@code valueBytes} (default 1024), {@code backfill} (objects, default 1000). Prints one
 * line per measure. A smoke run uses tiny numbers.
 */
public final class RegistrationBench {
    private static final String TOPIC = "bench";

    /** Results, also returned to the smoke test. */
    public record Result(
            int objects,
            double offloadCpuMsPerObject,
            double registerCpuMsPerObject,
            double registerWallMsP50,
            double registerWallMsP99,
            double registerShareOfOffload,
            int backfillObjects,
            double backfillCpuMsPerObject,
            long tableFiles) {}

    private RegistrationBench() {}

    public static void main(String[] args) throws Exception {
        int objects = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int records = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        int valueBytes = args.length > 2 ? Integer.parseInt(args[2]) : 1024;
        int backfill = args.length > 3 ? Integer.parseInt(args[3]) : 1000;
        Path dir = Files.createTempDirectory("registration-bench");
        Result r = run(dir, objects, records, valueBytes, backfill);
        System.out.printf(
                "objects=%d records/object=%d valueBytes=%d%n", objects, records, valueBytes);
        System.out.printf(
                "offload (write+upload+commit): %.1f process CPU-ms/object%n",
                r.offloadCpuMsPerObject());
        System.out.printf(
                "registration (one table commit per object): %.1f process CPU-ms/object,"
                        + " wall p50 %.1f ms, p99 %.1f ms; %.1f%% of offload CPU%n",
                r.registerCpuMsPerObject(),
                r.registerWallMsP50(),
                r.registerWallMsP99(),
                100 * r.registerShareOfOffload());
        System.out.printf(
                "backfill of %d objects in one round: %.2f process CPU-ms/object; table files %d%n",
                r.backfillObjects(), r.backfillCpuMsPerObject(), r.tableFiles());
    }

    public static Result run(Path dir, int objects, int records, int valueBytes, int backfill)
            throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.start(dir.resolve("data/s3"));
                ObjectStore store = S3ObjectStore.create(s3.clientConfig());
                Catalog catalog = Catalog.open("jdbc:sqlite:" + dir.resolve("data/catalog.db"))) {
            Config config = s3.clientConfig();
            ColdTierOptions cold = ColdTierOptions.from(config);
            catalog.createTopic(TOPIC, 2, Map.of());
            TableSetup setup =
                    new TableSetup(
                            config,
                            catalog,
                            store,
                            s3.bucket(),
                            dir.resolve("data"),
                            t -> config,
                            Time.SYSTEM);
            // A registrar whose background thread is woken by nobody: rounds run by sync().
            try (TopicTables tables = TopicTables.open(setup)) {
                tables.sync(TOPIC); // creates the table
                long offloadCpu = 0;
                long registerCpu = 0;
                long[] wall = new long[objects];
                long next = 0;
                for (int i = 0; i < objects; i++) {
                    long c0 = processCpuNs();
                    ColdObject o = offload(dir, store, catalog, cold, 0, next, records, valueBytes);
                    next = o.nextOffset();
                    long c1 = processCpuNs();
                    long w0 = System.nanoTime();
                    SyncResult sr = tables.sync(TOPIC);
                    wall[i] = System.nanoTime() - w0;
                    long c2 = processCpuNs();
                    if (!sr.committed() && sr.added() == 0) {
                        // the background round may have registered it first: still counted
                    }
                    offloadCpu += c1 - c0;
                    registerCpu += c2 - c1;
                }
                long bnext = 0;
                for (int i = 0; i < backfill; i++) {
                    ColdObject o =
                            offload(
                                    dir,
                                    store,
                                    catalog,
                                    cold,
                                    1,
                                    bnext,
                                    Math.max(1, records / 100),
                                    valueBytes);
                    bnext = o.nextOffset();
                }
                long b0 = processCpuNs();
                while (true) {
                    SyncResult sr = tables.sync(TOPIC);
                    if (sr.added() == 0) {
                        break;
                    }
                }
                long b1 = processCpuNs();
                long files = tables.state(TOPIC).map(s -> (long) s.files()).orElse(-1L);
                Arrays.sort(wall);
                return new Result(
                        objects,
                        offloadCpu / 1e6 / Math.max(1, objects),
                        registerCpu / 1e6 / Math.max(1, objects),
                        objects == 0 ? 0 : wall[objects / 2] / 1e6,
                        objects == 0
                                ? 0
                                : wall[Math.min(objects - 1, (int) (objects * 0.99))] / 1e6,
                        offloadCpu == 0 ? 0 : (double) registerCpu / offloadCpu,
                        backfill,
                        (b1 - b0) / 1e6 / Math.max(1, backfill),
                        files);
            }
        }
    }

    private static ColdObject offload(
            Path dir,
            ObjectStore store,
            Catalog catalog,
            ColdTierOptions cold,
            int partition,
            long first,
            int records,
            int valueBytes)
            throws IOException {
        Path file = Files.createTempFile(dir, "obj", ".parquet");
        WrittenObject w;
        try (ParquetLogWriter writer = ParquetLogWriter.open(file, TOPIC, partition, cold)) {
            for (MemoryRecords m : batches(first, records, valueBytes)) {
                writer.append(m.firstBatch());
            }
            w = writer.finish();
        }
        String key =
                ObjectKeys.newKey(cold.prefix(), TOPIC, partition, w.firstOffset(), w.lastOffset());
        store.put(key, file);
        Files.delete(file);
        ColdObject o =
                new ColdObject(
                        TOPIC,
                        partition,
                        w.firstOffset(),
                        w.lastOffset(),
                        w.minTimestamp(),
                        w.maxTimestamp(),
                        w.recordCount(),
                        w.sizeInBytes(),
                        key,
                        Instant.now());
        catalog.commit(o);
        return o;
    }

    private static List<MemoryRecords> batches(long first, int records, int valueBytes) {
        Random rnd = new Random(first);
        List<MemoryRecords> out = new ArrayList<>();
        int perBatch = 100;
        long offset = first;
        for (int done = 0; done < records; done += perBatch) {
            int n = Math.min(perBatch, records - done);
            MemoryRecordsBuilder b =
                    MemoryRecords.builder(
                            ByteBuffer.allocate(n * (valueBytes + 64) + 128),
                            Compression.NONE,
                            TimestampType.CREATE_TIME,
                            offset);
            for (int i = 0; i < n; i++) {
                byte[] v = new byte[valueBytes];
                rnd.nextBytes(v);
                b.append(System.currentTimeMillis(), ("k" + i).getBytes(), v);
            }
            out.add(b.build());
            offset += n;
        }
        return out;
    }

    private static long processCpuNs() {
        return ((com.sun.management.OperatingSystemMXBean)
                        ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
