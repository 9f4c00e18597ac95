package io.tierlog.compactor.testing;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.ParquetLogReader;
import io.tierlog.cold.S3ObjectStore;
import io.tierlog.cold.testing.FaultInjectingProxy;
import io.tierlog.common.Config;
import io.tierlog.common.Time;
import io.tierlog.compactor.Compactor;
import io.tierlog.compactor.SegmentSource;
import io.tierlog.s3.embedded.EmbeddedS3Server;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The one real cold tier for tests of every module above cold-tier: an in-process S3 server
 * (s3proxy over HTTP on a free loopback port), an {@link S3ObjectStore} talking to it, and a SQLite
 * catalog file, laid out as the embedded default of a data dir {@code <dir>/data}: objects under
 * {@code <dir>/data/s3}, the catalog in {@code <dir>/data/catalog.db} (so the fixture can also
 * reopen what {@code s3.mode=embedded} wrote). Use with try-with-resources or from
 * {@code @BeforeEach}/{@code @AfterEach} with a JUnit {@code @TempDir}:
 *
 * <pre>{@code
 * try (ColdTierFixture cold = ColdTierFixture.start(tempDir)) {
 *     TieredLog log = TieredLog.open(cold.engineConfig(Map.of("segment.bytes", "16384")));
 *     ...
 *     assertThat(cold.catalog().objects("events", 0)).isNotEmpty();
 * }
 * }</pre>
 *
 * <p>The store and the catalog are opened on first use, so a test whose engine owns the catalog
 * does not hold a second connection it never uses. The S3 server can be stopped and started again
 * on the same port over the same objects ({@link #stopS3()}, {@link #startS3()}) to simulate an
 * outage, and {@link #proxy()} puts a {@link FaultInjectingProxy} in front of it.
 *
 * <p>This class is the only place tests name the embedded S3 server's type; everything else asks
 * the fixture for endpoints and settings.
 *
 * <p>Not thread-safe to set up, stop or close; the store and catalog it hands out are.
 */
public final class ColdTierFixture implements AutoCloseable {
    private final Path dir;
    private final int port;
    private EmbeddedS3Server s3;
    private ObjectStore store;
    private Catalog catalog;
    private FaultInjectingProxy proxy;

    /** As {@link #start(Path)}. */
    public ColdTierFixture(Path dir) throws IOException {
        this.dir = dir;
        this.s3 = EmbeddedS3Server.start(s3Dir());
        this.port = s3.port();
    }

    /** Starts the S3 server over {@code dir/data/s3}; the catalog will be {@code dir/data}'s. */
    public static ColdTierFixture start(Path dir) throws IOException {
        return new ColdTierFixture(dir);
    }

    /** The fixture's root directory. */
    public Path dir() {
        return dir;
    }

    /** {@code <dir>/data}: the engine's or server's {@code data.dir}, holding the catalog. */
    public Path dataDir() {
        return dir.resolve("data");
    }

    private Path s3Dir() {
        return dataDir().resolve("s3");
    }

    /**
     * The catalog's JDBC URL: SQLite, {@code <dir>/data/catalog.db}, the default catalog of an
     * engine or server whose {@code data.dir} is {@link #dataDir()}.
     */
    public String catalogUrl() {
        return "jdbc:sqlite:" + dataDir().resolve("catalog.db");
    }

    /** The catalog, opened on first use and closed with the fixture. */
    public synchronized Catalog catalog() {
        if (catalog == null) {
            catalog = Catalog.open(catalogUrl());
        }
        return catalog;
    }

    /** An object store on the S3 server (directly, not through the proxy), opened on first use. */
    public synchronized ObjectStore store() {
        if (store == null) {
            store = S3ObjectStore.create(clientConfig());
        }
        return store;
    }

    /** A new object store over the S3 server reached through {@code endpoint}; caller closes. */
    public ObjectStore openStore(URI endpoint, Map<String, String> extra) {
        return S3ObjectStore.create(clientConfig(endpoint).with(extra));
    }

    /** The S3 server's own endpoint. */
    public URI endpoint() {
        return s3.endpoint();
    }

    /** The bucket's name. */
    public String bucket() {
        return s3.bucket();
    }

    /** The file that holds object {@code key} on the S3 server's disk (to damage it in a test). */
    public Path objectFile(String key) {
        return s3Dir().resolve(s3.bucket()).resolve(key);
    }

    /** The {@code s3.*} client settings (endpoint, bucket, region, credentials). */
    public Config clientConfig() {
        return s3.clientConfig();
    }

    /** As {@link #clientConfig()}, reaching the server through {@code endpoint} (a proxy). */
    public Config clientConfig(URI endpoint) {
        return s3.clientConfig(endpoint);
    }

    /** The S3 client settings plus {@code extra}. */
    public Config config(Map<String, String> extra) {
        return clientConfig().with(extra);
    }

    /**
     * Settings for a {@code TieredLog} or a server over this cold tier, reached through {@code
     * endpoint}: the S3 client settings, {@code s3.mode=external} and {@code data.dir} (whose
     * default catalog is {@link #catalogUrl()}), then {@code extra}. A mutable copy, for callers
     * that add more.
     */
    public Map<String, String> engineSettings(URI endpoint, Map<String, String> extra) {
        Map<String, String> m = new HashMap<>(clientConfig(endpoint).asMap());
        m.put("s3.mode", "external");
        m.put("data.dir", dataDir().toString());
        m.putAll(extra);
        return m;
    }

    /** {@link #engineSettings} on the server's own endpoint, as a {@link Config}. */
    public Config engineConfig(Map<String, String> extra) {
        return Config.of(engineSettings(endpoint(), extra));
    }

    /**
     * A fault-injecting proxy in front of the S3 server, started on first use and closed with the
     * fixture; point clients at it with {@code clientConfig(proxy().endpoint())}.
     */
    public synchronized FaultInjectingProxy proxy() throws IOException {
        if (proxy == null) {
            proxy = FaultInjectingProxy.start(s3.endpoint());
        }
        return proxy;
    }

    /** Stops the S3 server; its objects stay on disk. */
    public void stopS3() throws IOException {
        s3.close();
    }

    /** Starts the S3 server again on the same port over the same objects. */
    public void startS3() throws IOException {
        s3 = EmbeddedS3Server.start(s3Dir(), port, s3.bucket());
    }

    /**
     * A compactor from {@code source} (whose files are under {@code sourceDir}, if any) into this
     * cold tier, with the S3 client settings plus {@code settings}; the caller closes it.
     */
    public Compactor compactor(
            SegmentSource source, Optional<Path> sourceDir, Map<String, String> settings, Time time)
            throws IOException {
        return Compactor.create(source, sourceDir, catalog(), store(), config(settings), time);
    }

    /** Every batch of the partition as the cold tier returns it, object by object. */
    public List<RecordBatch> readBack(String topic, int partition) throws IOException {
        return readBack(store(), catalog(), topic, partition);
    }

    /** Every batch of the partition in {@code catalog}, read from {@code store}. */
    public static List<RecordBatch> readBack(
            ObjectStore store, Catalog catalog, String topic, int partition) throws IOException {
        return readBack(store, catalog, topic, partition, null);
    }

    /** As {@link #readBack(String, int)}, rebuilding values stored once with {@code rebuilder}. */
    public List<RecordBatch> readBack(
            String topic, int partition, io.tierlog.common.typed.ValueRebuilder rebuilder)
            throws IOException {
        return readBack(store(), catalog(), topic, partition, rebuilder);
    }

    private static List<RecordBatch> readBack(
            ObjectStore store,
            Catalog catalog,
            String topic,
            int partition,
            io.tierlog.common.typed.ValueRebuilder rebuilder)
            throws IOException {
        List<RecordBatch> out = new ArrayList<>();
        for (ColdObject o : catalog.objects(topic, partition)) {
            ParquetLogReader reader =
                    new ParquetLogReader(store, o.key(), o.sizeInBytes(), rebuilder);
            long next = o.firstOffset();
            while (next <= o.lastOffset()) {
                MemoryRecords records = reader.read(next, 1 << 20);
                long before = next;
                for (RecordBatch b : records.batches()) {
                    if (b.lastOffset() >= next) {
                        out.add(b);
                        next = b.lastOffset() + 1;
                    }
                }
                if (next == before) {
                    break;
                }
            }
        }
        return out;
    }

    /** Closes the catalog, the store, the proxy and the S3 server, in that order. */
    @Override
    public synchronized void close() throws IOException {
        IOException failure = null;
        for (AutoCloseable part : new AutoCloseable[] {catalog, store, proxy, s3}) {
            try {
                if (part != null) {
                    part.close();
                }
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IOException("could not close the cold-tier fixture", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
