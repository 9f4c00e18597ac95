package io.tierlog.itests.iceberg;

import java.util.ArrayList;
import java.util.List;

/**
 * How an outside reader reaches tierlog's tables: Iceberg's JDBC catalog at {@code uri} (named
 * {@code tierlog}: JdbcCatalog keys its rows by the name) and the bucket through {@code S3FileIO}
 * at {@code s3Endpoint} with the given keys, as an analyst's Spark or Java program would.
 * Immutable.
 *
 * @param uri the catalog's JDBC URL
 * @param warehouse the warehouse location ({@code s3://...})
 * @param s3Endpoint the S3 endpoint, {@code http://127.0.0.1:<port>}
 * @param accessKey the S3 access key
 * @param secretKey the S3 secret key
 */
record ReaderCatalog(
        String uri, String warehouse, String s3Endpoint, String accessKey, String secretKey) {

    /** The catalog name tierlog registers under, and the readers must use. */
    static final String NAME = "tierlog";

    /**
     * The {@code key=value} catalog settings SparkQueryMain and GenericsReaderMain take (Iceberg's
     * catalog property names).
     */
    List<String> settings() {
        List<String> s = new ArrayList<>();
        s.add("uri=" + uri);
        s.add("warehouse=" + warehouse);
        s.add("s3.endpoint=" + s3Endpoint);
        s.add("s3.access-key-id=" + accessKey);
        s.add("s3.secret-access-key=" + secretKey);
        return s;
    }
}
