package io.tierlog.s3.embedded;

import io.tierlog.common.Config;
import io.tierlog.common.EmbeddedObjectStore;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;

/**
 * An in-process S3-compatible server (s3proxy, filesystem-backed) listening on loopback: the
 * embedded default of {@code tierlog serve}, so that the real S3 code path runs even on a laptop,
 * and the server of the object-store tests.
 *
 * <p>Objects live under {@code dir/<bucket>/<key>} as plain files. Requests are authenticated with
 * AWS Signature V4 and the credentials of {@link #accessKey()}/{@link #secretKey()}. The bucket is
 * created on start if missing.
 *
 * <p>The storage modules find it through {@link EmbeddedObjectStore#start} ({@link
 * S3ProxyProvider}, registered in {@code META-INF/services}), never by name: it is on the class
 * path only when the embedded default is wanted.
 *
 * <p>Thread-safe; {@link #close()} stops the server (objects stay on disk).
 */
public final class EmbeddedS3Server implements EmbeddedObjectStore {

    private static final String ACCESS_KEY = "tierlog";
    private static final String SECRET_KEY = "tierlog-embedded-secret";
    private static final String REGION = "us-east-1";

    private final S3Proxy proxy;
    private final BlobStore blobStore;
    private final URI endpoint;
    private final String bucket;
    private final Path dir;

    private EmbeddedS3Server(
            S3Proxy proxy, BlobStore blobStore, URI endpoint, String bucket, Path dir) {
        this.proxy = proxy;
        this.blobStore = blobStore;
        this.endpoint = endpoint;
        this.bucket = bucket;
        this.dir = dir;
    }

    /**
     * Starts a server storing under {@code dir} on a free loopback port, bucket {@code tierlog}.
     */
    public static EmbeddedS3Server start(Path dir) throws IOException {
        return start(dir, 0, DEFAULT_BUCKET);
    }

    /**
     * Starts a server storing under {@code dir} on loopback {@code port} (0 = any free port) and
     * creates {@code bucket} if missing.
     */
    public static EmbeddedS3Server start(Path dir, int port, String bucket) throws IOException {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(bucket, "bucket");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("invalid port " + port);
        }
        Files.createDirectories(dir);
        Properties props = new Properties();
        props.setProperty("jclouds.filesystem.basedir", dir.toAbsolutePath().toString());
        props.setProperty("jclouds.identity", ACCESS_KEY);
        props.setProperty("jclouds.credential", SECRET_KEY);
        BlobStore store = BlobStores.create("filesystem", props);
        URI bind = URI.create("http://127.0.0.1:" + port);
        S3Proxy proxy =
                S3Proxy.builder()
                        .blobStore(store)
                        .endpoint(bind)
                        .awsAuthentication(AuthenticationType.AWS_V4, ACCESS_KEY, SECRET_KEY)
                        .ignoreUnknownHeaders(true)
                        .jettyMaxThreads(32)
                        .build();
        try {
            proxy.start();
            waitStarted(proxy);
            if (!store.containerExists(bucket)) {
                store.createContainer(bucket);
            }
        } catch (Exception e) {
            try {
                proxy.stop();
            } catch (Exception stop) {
                e.addSuppressed(stop);
            }
            throw new IOException("could not start embedded S3 server under " + dir, e);
        }
        URI endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
        return new EmbeddedS3Server(proxy, store, endpoint, bucket, dir);
    }

    private static void waitStarted(S3Proxy proxy) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!"STARTED".equals(proxy.getState())) {
            if (System.nanoTime() > deadline) {
                throw new IOException("s3proxy did not start: state " + proxy.getState());
            }
            Thread.sleep(5);
        }
    }

    @Override
    public URI endpoint() {
        return endpoint;
    }

    public int port() {
        return endpoint.getPort();
    }

    public String bucket() {
        return bucket;
    }

    public String accessKey() {
        return ACCESS_KEY;
    }

    public String secretKey() {
        return SECRET_KEY;
    }

    public String region() {
        return REGION;
    }

    @Override
    public Path dir() {
        return dir;
    }

    @Override
    public Config clientConfig() {
        return clientConfig(endpoint);
    }

    /** As {@link #clientConfig()}, but through another endpoint (e.g. a fault-injecting proxy). */
    public Config clientConfig(URI through) {
        // The keys of cold-tier's ColdTierOptions, spelt out: this module depends on common only
        // (the cold tier's tests run this server). Every S3 test connects through these.
        return Config.of(
                Map.of(
                        "s3.endpoint", through.toString(),
                        "s3.bucket", bucket,
                        "s3.region", REGION,
                        "s3.path.style", "true",
                        "s3.access.key", ACCESS_KEY,
                        "s3.secret.key", SECRET_KEY));
    }

    /** Registered in {@code META-INF/services}: how the storage modules start this server. */
    public static final class S3ProxyProvider implements EmbeddedObjectStore.Provider {
        @Override
        public EmbeddedObjectStore start(Path dir) throws IOException {
            return EmbeddedS3Server.start(dir);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            proxy.stop();
        } catch (Exception e) {
            throw new IOException("could not stop embedded S3 server", e);
        } finally {
            blobStore.close();
        }
    }
}
