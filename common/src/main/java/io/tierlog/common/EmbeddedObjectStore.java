package io.tierlog.common;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.ServiceLoader;

/**
 * An S3-compatible server run in-process, storing under a local directory: the embedded default
 * used when {@code s3.endpoint} is empty. The implementation (s3proxy, artifact {@code
 * io.tierlog:tierlog-embedded-s3}) is found on the class path by {@link ServiceLoader}, so the
 * storage modules have no compile-time dependency on it and an embedder with its own S3 endpoint
 * does not carry it.
 *
 * <p>Implementations are thread-safe; {@link #close()} stops the server (objects stay on disk).
 */
public interface EmbeddedObjectStore extends AutoCloseable {
    /** The bucket the embedded default creates and uses. */
    String DEFAULT_BUCKET = "tierlog";

    /** The artifact that provides the embedded server, named in the error when it is missing. */
    String ARTIFACT = "io.tierlog:tierlog-embedded-s3";

    /** Starts an embedded server; registered in {@code META-INF/services}. */
    interface Provider {
        /**
         * Starts a server storing under {@code dir} on a free loopback port, bucket {@code
         * tierlog}.
         */
        EmbeddedObjectStore start(Path dir) throws IOException;
    }

    /** The base URL, for example {@code http://127.0.0.1:40123}. */
    URI endpoint();

    /** The directory holding the buckets. */
    Path dir();

    /**
     * The {@code s3.*} settings that point an S3 client at this server (endpoint, bucket, region,
     * path-style, credentials).
     */
    Config clientConfig();

    @Override
    void close() throws IOException;

    /**
     * Starts the embedded server of the first {@link Provider} on the class path, storing under
     * {@code dir}.
     *
     * @throws ConfigException when there is none: one line saying to set {@code s3.endpoint} or add
     *     {@value #ARTIFACT}
     */
    static EmbeddedObjectStore start(Path dir) throws IOException {
        Iterator<Provider> providers =
                ServiceLoader.load(Provider.class, EmbeddedObjectStore.class.getClassLoader())
                        .iterator();
        if (!providers.hasNext()) {
            throw new ConfigException(
                    "the embedded S3 server (the default without s3.endpoint) is not on the class"
                            + " path: set s3.endpoint to your S3 service, or add "
                            + ARTIFACT);
        }
        return providers.next().start(dir);
    }
}
