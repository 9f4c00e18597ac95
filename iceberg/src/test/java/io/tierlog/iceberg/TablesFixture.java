package io.tierlog.iceberg;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ColdTierOptions;
import io.tierlog.cold.ObjectKeys;
import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.ParquetLogWriter;
import io.tierlog.cold.S3ObjectStore;
import io.tierlog.cold.TypedColumns;
import io.tierlog.cold.WrittenObject;
import io.tierlog.cold.testing.ToyTyper;
import io.tierlog.common.Config;
import io.tierlog.common.Time;
import io.tierlog.iceberg.testing.RestCatalogServer;
import io.tierlog.s3.embedded.EmbeddedS3Server;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * A real cold tier for the iceberg tests: embedded s3proxy, an S3 object store, a SQLite tierlog
 * catalog in {@code <dir>/data}, and (for {@code rest}) a REST catalog server. Objects are written
 * by the real cold-tier writer, uploaded and committed like the offloader does. Not thread-safe.
 */
final class TablesFixture implements AutoCloseable {
    final Path dir;
    final String kind;
    final EmbeddedS3Server s3;
    final ObjectStore store;
    final Catalog catalog;
    final RestCatalogServer rest;
    final Map<String, String> topicSettings = new HashMap<>();
    private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);

    TablesFixture(Path dir, String kind) throws IOException {
        this.dir = dir;
        this.kind = kind;
        this.s3 = EmbeddedS3Server.start(dataDir().resolve("s3"));
        this.store = S3ObjectStore.create(s3.clientConfig());
        this.catalog = Catalog.open("jdbc:sqlite:" + dataDir().resolve("catalog.db"));
        this.rest =
                kind.equals("rest")
                        ? RestCatalogServer.start(
                                store,
                                s3.bucket(),
                                dir.resolve("rest"),
                                "s3://" + s3.bucket() + "/iceberg")
                        : null;
    }

    Path dataDir() {
        return dir.resolve("data");
    }

    Config config() {
        Map<String, String> m = new HashMap<>(s3.clientConfig().asMap());
        if (rest != null) {
            m.put("iceberg.catalog.type", "rest");
            m.put("iceberg.catalog.uri", rest.uri().toString());
        }
        m.putAll(topicSettings);
        return Config.of(m);
    }

    TableSetup setup() {
        Config c = config();
        return new TableSetup(c, catalog, store, s3.bucket(), dataDir(), t -> c, Time.SYSTEM);
    }

    /** A registrar without its background thread: rounds run by {@code sync}. */
    IcebergTopicTables open() {
        return IcebergTopicTables.open(setup(), false, false);
    }

    /** A registrar with its background thread, as the engine opens it. */
    IcebergTopicTables openBackground() {
        return (IcebergTopicTables) TopicTables.open(setup());
    }

    /** Writes, uploads and commits one object of {@code n} records at the partition's end. */
    ColdObject append(String topic, int partition, int n) throws IOException {
        var state = catalog.partitionState(topic, partition);
        long first = Math.max(0, state.coldHighWatermark());
        return put(topic, partition, first, n);
    }

    ColdObject put(String topic, int partition, long first, int n) throws IOException {
        ColdObject o = write(topic, partition, first, n);
        catalog.commit(o);
        return o;
    }

    /** Writes and uploads an object of {@code n} records from {@code first}, not committed. */
    ColdObject write(String topic, int partition, long first, int n) throws IOException {
        return write(topic, partition, first, n, TypedColumns.NONE);
    }

    /** Writes, uploads and commits an object of {@code n} toy-typed values (format 3). */
    ColdObject appendTyped(String topic, int partition, int n) throws IOException {
        return appendTyped(topic, partition, n, new TypedColumns(new ToyTyper(), null, false));
    }

    /** As {@link #appendTyped(String, int, int)} with {@code typed}. */
    ColdObject appendTyped(String topic, int partition, int n, TypedColumns typed)
            throws IOException {
        long first = Math.max(0, catalog.partitionState(topic, partition).coldHighWatermark());
        ColdObject o = write(topic, partition, first, n, typed);
        catalog.commit(o);
        return o;
    }

    private ColdObject write(String topic, int partition, long first, int n, TypedColumns typed)
            throws IOException {
        MemoryRecords batch = typed == TypedColumns.NONE ? batch(first, n) : typedBatch(first, n);
        Path file = Files.createTempFile(dir, "obj", ".parquet");
        WrittenObject w;
        try (ParquetLogWriter lw =
                ParquetLogWriter.open(
                        file, topic, partition, ColdTierOptions.from(config()), typed)) {
            lw.append(batch.firstBatch());
            w = lw.finish();
        }
        String key = ObjectKeys.newKey("", topic, partition, w.firstOffset(), w.lastOffset());
        store.put(key, file);
        Files.delete(file);
        ColdObject o =
                new ColdObject(
                        topic,
                        partition,
                        w.firstOffset(),
                        w.lastOffset(),
                        w.minTimestamp(),
                        w.maxTimestamp(),
                        w.recordCount(),
                        w.sizeInBytes(),
                        key,
                        Instant.now());
        return o;
    }

    private MemoryRecords typedBatch(long first, int n) {
        SimpleRecord[] rs = new SimpleRecord[n];
        Random rnd = new Random(first);
        for (int i = 0; i < n; i++) {
            rs[i] =
                    new SimpleRecord(
                            clock.incrementAndGet(),
                            ToyTyper.randomPayload(rnd),
                            ToyTyper.randomPayload(rnd));
        }
        return MemoryRecords.withRecords(first, Compression.NONE, rs);
    }

    private MemoryRecords batch(long first, int n) {
        SimpleRecord[] rs = new SimpleRecord[n];
        Random rnd = new Random(first);
        for (int i = 0; i < n; i++) {
            byte[] v = new byte[20 + rnd.nextInt(50)];
            rnd.nextBytes(v);
            rs[i] = new SimpleRecord(clock.incrementAndGet(), ("k" + i).getBytes(), v);
        }
        return MemoryRecords.withRecords(first, Compression.NONE, rs);
    }

    @Override
    public void close() throws Exception {
        if (rest != null) {
            rest.close();
        }
        catalog.close();
        store.close();
        s3.close();
    }
}
