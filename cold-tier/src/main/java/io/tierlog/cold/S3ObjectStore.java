package io.tierlog.cold;

import io.tierlog.common.Config;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntFunction;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * {@link ObjectStore} on the AWS SDK v2 synchronous S3 client (Apache HttpClient 5 transport).
 *
 * <p>Behaviour:
 *
 * <ul>
 *   <li>Endpoint, region, path-style addressing and credentials come from {@link ColdTierOptions};
 *       without static keys the AWS default credentials provider chain is used.
 *   <li>Every request is retried by the SDK's standard retry strategy: throttling, 5xx, timeouts
 *       and connection errors, up to {@code s3.retry.max.attempts} attempts with exponential
 *       backoff and full jitter between {@code s3.retry.backoff.ms} and {@code
 *       s3.retry.backoff.max.ms}. The SDK's retry circuit breaker is disabled: an endpoint that is
 *       down for a while must not make later requests fail fast.
 *   <li>Every call has a deadline, retries included, so an endpoint that accepts connections and
 *       never answers cannot hang a caller: {@code s3.api.call.timeout.ms} for reads and metadata
 *       calls, {@code s3.upload.timeout.ms} for uploads (object PUT, one part); one attempt of a
 *       read is bounded by {@code s3.request.timeout.ms}, which is also the socket timeout of every
 *       call. A call past its deadline throws {@link ObjectStoreTimeoutException} and logs a WARN
 *       (at most one line per 10 s) naming the key and the setting.
 *   <li>Uploads carry a CRC32C checksum (and, over plain HTTP, a signed SHA-256 payload hash) that
 *       the server verifies; an upload corrupted in flight is rejected and never stored. Every
 *       object also records the CRC32C of its whole content in the user metadata {@code
 *       x-amz-meta-tierlog-crc32c}, which whole-object downloads verify (servers such as s3proxy do
 *       not return S3's own checksums); a mismatching download is fetched again. Ranged reads are
 *       covered by the CRC of each Parquet page, which {@link ParquetLogReader} verifies.
 *   <li>Files above {@code s3.multipart.threshold.bytes} are uploaded in parts of {@code
 *       s3.multipart.part.bytes}; a failed multipart upload is aborted.
 *   <li>Keys are full object keys inside the bucket; this class does not add {@code s3.prefix}
 *       (callers build keys with {@link ObjectKeys} and {@link ColdTierOptions#prefix()}).
 * </ul>
 *
 * <p>Thread-safe: the SDK client is shared by all threads.
 */
public final class S3ObjectStore implements ObjectStore {
    private static final Logger log = LoggerFactory.getLogger(S3ObjectStore.class);

    /** User metadata key (x-amz-meta-...) holding the CRC32C of the whole object, in hex. */
    static final String CRC_METADATA = "tierlog-crc32c";

    private static final int CORRUPT_DOWNLOAD_ATTEMPTS = 3;

    private final S3Client s3;
    private final String bucket;
    private final long multipartThreshold;
    private final int partSize;

    private final java.time.Duration apiCallTimeout;
    private final java.time.Duration uploadTimeout;

    /** When a timeout WARN was last logged (nanoTime), so an outage logs a line per interval. */
    private final java.util.concurrent.atomic.AtomicLong lastTimeoutWarn =
            new java.util.concurrent.atomic.AtomicLong(System.nanoTime() - WARN_INTERVAL_NANOS);

    private final java.util.concurrent.atomic.AtomicLong suppressedTimeouts =
            new java.util.concurrent.atomic.AtomicLong();

    private static final long WARN_INTERVAL_NANOS = 10_000_000_000L;

    private S3ObjectStore(S3Client s3, ColdTierOptions options) {
        this.s3 = s3;
        this.apiCallTimeout = options.apiCallTimeout();
        this.uploadTimeout = options.uploadTimeout();
        this.bucket = options.bucket();
        this.multipartThreshold = options.multipartThresholdBytes();
        this.partSize = Math.toIntExact(options.multipartPartBytes());
    }

    /** A store configured by the {@code s3.*} keys of {@code config}. */
    public static S3ObjectStore create(Config config) {
        return create(ColdTierOptions.from(config));
    }

    /** A store configured by {@code options}. */
    public static S3ObjectStore create(ColdTierOptions options) {
        Objects.requireNonNull(options, "options");
        AwsCredentialsProvider credentials =
                options.accessKey().isPresent()
                        ? StaticCredentialsProvider.create(
                                AwsBasicCredentials.create(
                                        options.accessKey().get(), options.secretKey().get()))
                        : DefaultCredentialsProvider.builder().build();
        var retryStrategy =
                AwsRetryStrategy.standardRetryStrategy().toBuilder()
                        .maxAttempts(options.retryMaxAttempts())
                        .backoffStrategy(
                                BackoffStrategy.exponentialDelay(
                                        options.retryBackoff(), options.retryBackoffMax()))
                        .throttlingBackoffStrategy(
                                BackoffStrategy.exponentialDelay(
                                        options.retryBackoff().multipliedBy(5),
                                        options.retryBackoffMax()))
                        .circuitBreakerEnabled(false)
                        .retryOnException(S3ObjectStore::isCorruptionInFlight)
                        .build();
        var builder =
                S3Client.builder()
                        .region(Region.of(options.region()))
                        .credentialsProvider(credentials)
                        .serviceConfiguration(
                                S3Configuration.builder()
                                        .pathStyleAccessEnabled(options.pathStyle())
                                        .build())
                        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                        .responseChecksumValidation(ResponseChecksumValidation.WHEN_SUPPORTED)
                        .httpClientBuilder(
                                Apache5HttpClient.builder()
                                        .maxConnections(64)
                                        .connectionTimeout(
                                                min(
                                                        options.requestTimeout(),
                                                        java.time.Duration.ofSeconds(10)))
                                        .socketTimeout(options.requestTimeout())
                                        .connectionAcquisitionTimeout(options.apiCallTimeout()))
                        .overrideConfiguration(
                                c ->
                                        c.retryStrategy(retryStrategy)
                                                .apiCallAttemptTimeout(options.requestTimeout())
                                                .apiCallTimeout(options.apiCallTimeout()));
        options.endpoint().ifPresent(e -> builder.endpointOverride(URI.create(e)));
        return new S3ObjectStore(builder.build(), options);
    }

    /**
     * Uploads carry a body that may take a while on a slow link: their deadline (whole call and
     * each attempt) is {@code s3.upload.timeout.ms}; a silent endpoint still fails an attempt after
     * the socket timeout ({@code s3.request.timeout.ms}).
     */
    private void uploadDeadline(
            software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration.Builder o) {
        o.apiCallTimeout(uploadTimeout).apiCallAttemptTimeout(uploadTimeout);
    }

    /** A payload the server received damaged (its checksum or hash did not match). */
    private static boolean isCorruptionInFlight(Throwable t) {
        if (t instanceof S3Exception se && se.awsErrorDetails() != null) {
            String code = se.awsErrorDetails().errorCode();
            return "BadDigest".equals(code)
                    || "XAmzContentChecksumMismatch".equals(code)
                    || "XAmzContentSHA256Mismatch".equals(code);
        }
        return false;
    }

    private static java.time.Duration min(java.time.Duration a, java.time.Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** The bucket this store reads and writes. */
    public String bucket() {
        return bucket;
    }

    @Override
    public void put(String key, Path file) throws IOException {
        long size;
        try {
            size = Files.size(file);
        } catch (IOException e) {
            throw new ObjectStoreException(key, "cannot read local file " + file, e);
        }
        String crc = crc32cOf(key, file);
        if (size > multipartThreshold) {
            putMultipart(key, file, size, crc);
            return;
        }
        try {
            s3.putObject(
                    b ->
                            b.bucket(bucket)
                                    .key(key)
                                    .contentLength(size)
                                    .metadata(Map.of(CRC_METADATA, crc))
                                    .checksumAlgorithm(ChecksumAlgorithm.CRC32_C)
                                    .overrideConfiguration(this::uploadDeadline),
                    RequestBody.fromFile(file));
        } catch (SdkException | UncheckedIOException e) {
            throw translate(key, "PUT", e);
        }
    }

    @Override
    public void put(String key, byte[] data) throws IOException {
        Objects.requireNonNull(data, "data");
        try {
            s3.putObject(
                    b ->
                            b.bucket(bucket)
                                    .key(key)
                                    .contentLength((long) data.length)
                                    .metadata(Map.of(CRC_METADATA, crc32c(data)))
                                    .checksumAlgorithm(ChecksumAlgorithm.CRC32_C)
                                    .overrideConfiguration(this::uploadDeadline),
                    RequestBody.fromBytes(data));
        } catch (SdkException e) {
            throw translate(key, "PUT", e);
        }
    }

    private void putMultipart(String key, Path file, long size, String crc) throws IOException {
        CreateMultipartUploadResponse created;
        try {
            created =
                    s3.createMultipartUpload(
                            b ->
                                    b.bucket(bucket)
                                            .key(key)
                                            .metadata(Map.of(CRC_METADATA, crc))
                                            .checksumAlgorithm(ChecksumAlgorithm.CRC32_C));
        } catch (SdkException e) {
            throw translate(key, "CreateMultipartUpload", e);
        }
        String uploadId = created.uploadId();
        List<CompletedPart> parts = new ArrayList<>();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer buf = ByteBuffer.allocate((int) Math.min(partSize, size));
            long position = 0;
            int partNumber = 1;
            while (position < size) {
                buf.clear();
                int want = (int) Math.min(partSize, size - position);
                buf.limit(want);
                while (buf.hasRemaining()) {
                    if (ch.read(buf, position + buf.position()) < 0) {
                        throw new ObjectStoreException(
                                key, "local file " + file + " shrank during upload");
                    }
                }
                buf.flip();
                final int pn = partNumber;
                UploadPartResponse r =
                        s3.uploadPart(
                                b ->
                                        b.bucket(bucket)
                                                .key(key)
                                                .uploadId(uploadId)
                                                .partNumber(pn)
                                                .contentLength((long) want)
                                                .checksumAlgorithm(ChecksumAlgorithm.CRC32_C)
                                                .overrideConfiguration(this::uploadDeadline),
                                RequestBody.fromByteBuffer(buf));
                parts.add(
                        CompletedPart.builder()
                                .partNumber(pn)
                                .eTag(r.eTag())
                                .checksumCRC32C(r.checksumCRC32C())
                                .build());
                position += want;
                partNumber++;
            }
            s3.completeMultipartUpload(
                    b ->
                            b.bucket(bucket)
                                    .key(key)
                                    .uploadId(uploadId)
                                    .multipartUpload(
                                            CompletedMultipartUpload.builder()
                                                    .parts(parts)
                                                    .build()));
        } catch (IOException | RuntimeException e) {
            abortQuietly(key, uploadId, e);
            if (e instanceof ObjectStoreException ose) {
                throw ose;
            }
            if (e instanceof SdkException se) {
                throw translate(key, "multipart upload", se);
            }
            throw new ObjectStoreException(key, "multipart upload failed: " + e, e);
        }
    }

    private void abortQuietly(String key, String uploadId, Exception cause) {
        try {
            s3.abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId));
        } catch (SdkException e) {
            cause.addSuppressed(e);
            log.warn(
                    "Could not abort multipart upload {} of {}; the bucket's lifecycle rule"
                            + " must clean it up",
                    uploadId,
                    key,
                    e);
        }
    }

    @Override
    public ByteBuffer get(String key, long position, int length) throws IOException {
        if (position < 0 || length < 0) {
            throw new IllegalArgumentException(
                    "invalid range position=" + position + " length=" + length + " for " + key);
        }
        if (length == 0) {
            return ByteBuffer.allocate(0);
        }
        String range = "bytes=" + position + "-" + (position + length - 1);
        try {
            // Read straight into an array of the known size: getObjectAsBytes grows a
            // ByteArrayOutputStream (copies, humongous garbage) and was ~20% of cold-read CPU.
            // A transformer runs inside the SDK's retry loop, so retries are unchanged.
            return s3.getObject(
                    b -> b.bucket(bucket).key(key).range(range),
                    (response, in) -> readUpTo(in, length));
        } catch (SdkException | UncheckedIOException e) {
            throw translate(key, "GET " + range, e);
        }
    }

    @Override
    public ByteBuffer[] getParts(
            String key, long position, int[] lengths, IntFunction<ByteBuffer> allocate)
            throws IOException {
        long total = 0;
        for (int l : lengths) {
            total += Math.abs((long) l);
        }
        if (position < 0 || total == 0) {
            return ObjectStore.super.getParts(key, position, lengths, allocate);
        }
        String range = "bytes=" + position + "-" + (position + total - 1);
        long wanted = total;
        try {
            // Each part is read into its own buffer from the caller's allocator (pages of a few
            // hundred KiB, or a read's arena, rather than one multi-MiB humongous array per GET).
            // Inside the SDK's retry loop, like get.
            return s3.getObject(
                    b -> b.bucket(bucket).key(key).range(range),
                    (response, in) -> {
                        ByteBuffer[] parts = new ByteBuffer[lengths.length];
                        for (int i = 0; i < lengths.length; i++) {
                            int n = Math.abs(lengths[i]);
                            if (lengths[i] < 0) {
                                in.skipNBytes(n);
                                continue;
                            }
                            ByteBuffer part = allocate.apply(n);
                            int off = part.arrayOffset() + part.position();
                            if (in.readNBytes(part.array(), off, n) != n) {
                                throw new java.io.EOFException(
                                        "object ended before "
                                                + wanted
                                                + " bytes from "
                                                + position);
                            }
                            parts[i] = part;
                        }
                        return parts;
                    });
        } catch (SdkException | UncheckedIOException e) {
            throw translate(key, "GET " + range, e);
        }
    }

    private static ByteBuffer readUpTo(InputStream in, int length) throws IOException {
        byte[] data = new byte[length];
        int n = in.readNBytes(data, 0, length);
        return ByteBuffer.wrap(data, 0, n);
    }

    @Override
    public ByteBuffer get(String key) throws IOException {
        for (int attempt = 1; ; attempt++) {
            ResponseBytes<GetObjectResponse> bytes;
            try {
                bytes =
                        s3.getObjectAsBytes(
                                b -> b.bucket(bucket).key(key).checksumMode(ChecksumMode.ENABLED));
            } catch (SdkException | UncheckedIOException e) {
                throw translate(key, "GET", e);
            }
            String expected = bytes.response().metadata().get(CRC_METADATA);
            ByteBuffer data = bytes.asByteBuffer();
            if (expected == null || expected.equals(crc32c(data.duplicate()))) {
                return data;
            }
            if (attempt >= CORRUPT_DOWNLOAD_ATTEMPTS) {
                throw new ObjectStoreException(
                        key,
                        "GET s3://"
                                + bucket
                                + " failed: content does not match its CRC32C "
                                + expected
                                + " after "
                                + attempt
                                + " attempts");
            }
            log.warn(
                    "Download of {} failed its CRC32C check (attempt {}); fetching again",
                    key,
                    attempt);
        }
    }

    static String crc32c(byte[] data) {
        return crc32c(ByteBuffer.wrap(data));
    }

    static String crc32c(ByteBuffer data) {
        CRC32C c = new CRC32C();
        c.update(data);
        return Long.toHexString(c.getValue());
    }

    private static String crc32cOf(String key, Path file) throws IOException {
        CRC32C c = new CRC32C();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
            while (ch.read(buf) >= 0) {
                buf.flip();
                c.update(buf);
                buf.clear();
            }
        } catch (IOException e) {
            throw new ObjectStoreException(key, "cannot read local file " + file, e);
        }
        return Long.toHexString(c.getValue());
    }

    /** Streams a whole object; the caller closes the stream. */
    public InputStream openStream(String key) throws IOException {
        try {
            return s3.getObject(b -> b.bucket(bucket).key(key));
        } catch (SdkException e) {
            throw translate(key, "GET", e);
        }
    }

    @Override
    public ObjectInfo head(String key) throws IOException {
        try {
            HeadObjectResponse r = s3.headObject(b -> b.bucket(bucket).key(key));
            return new ObjectInfo(key, r.contentLength(), orEpoch(r.lastModified()));
        } catch (SdkException e) {
            throw translate(key, "HEAD", e);
        }
    }

    @Override
    public List<ObjectInfo> list(String prefix) throws IOException {
        List<ObjectInfo> out = new ArrayList<>();
        try {
            for (S3Object o :
                    s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents()) {
                out.add(new ObjectInfo(o.key(), o.size(), orEpoch(o.lastModified())));
            }
        } catch (SdkException e) {
            throw translate(prefix, "LIST", e);
        }
        out.sort(Comparator.comparing(ObjectInfo::key));
        return out;
    }

    @Override
    public void delete(String key) throws IOException {
        try {
            s3.deleteObject(b -> b.bucket(bucket).key(key));
        } catch (SdkException e) {
            ObjectStoreException t = translate(key, "DELETE", e);
            if (!(t instanceof ObjectNotFoundException)) {
                throw t;
            }
        }
    }

    /** Creates the bucket if it does not exist yet (for embedded and test setups). */
    public void createBucketIfMissing() throws IOException {
        try {
            s3.headBucket(b -> b.bucket(bucket));
        } catch (S3Exception e) {
            if (e.statusCode() != 404) {
                throw translate(bucket, "HEAD bucket", e);
            }
            try {
                s3.createBucket(b -> b.bucket(bucket));
            } catch (SdkException ce) {
                throw translate(bucket, "CREATE bucket", ce);
            }
        } catch (SdkException e) {
            throw translate(bucket, "HEAD bucket", e);
        }
    }

    @Override
    public void close() {
        s3.close();
    }

    /**
     * A call's deadline or an attempt's passed, or the endpoint stayed silent past the socket
     * timeout on every attempt.
     */
    static boolean isTimeout(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof software.amazon.awssdk.core.exception.ApiCallTimeoutException
                    || t
                            instanceof
                            software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException
                    || t instanceof java.net.SocketTimeoutException
                    || t instanceof java.util.concurrent.TimeoutException) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /** One WARN per interval while calls time out, naming the key and the setting. */
    private void warnTimeout(String key, String message) {
        long now = System.nanoTime();
        long last = lastTimeoutWarn.get();
        if (now - last >= WARN_INTERVAL_NANOS && lastTimeoutWarn.compareAndSet(last, now)) {
            long suppressed = suppressedTimeouts.getAndSet(0);
            log.warn(
                    "S3 call for key {} {}{}",
                    key,
                    message,
                    suppressed == 0
                            ? ""
                            : " (" + suppressed + " more timeouts since the last line)");
        } else {
            suppressedTimeouts.incrementAndGet();
        }
    }

    private static Instant orEpoch(Instant i) {
        return i == null ? Instant.EPOCH : i;
    }

    private ObjectStoreException translate(String key, String op, Exception e) {
        if (isTimeout(e)) {
            boolean upload = op.startsWith("PUT") || op.startsWith("multipart");
            String setting =
                    upload
                            ? "s3.upload.timeout.ms=" + uploadTimeout.toMillis()
                            : "s3.api.call.timeout.ms=" + apiCallTimeout.toMillis();
            String message =
                    op + " s3://" + bucket + " timed out (" + setting + "): " + e.getMessage();
            warnTimeout(key, message);
            return new ObjectStoreTimeoutException(key, message, e);
        }
        if (e instanceof NoSuchKeyException) {
            return new ObjectNotFoundException(key, e);
        }
        if (e instanceof S3Exception se) {
            if (se.statusCode() == 404
                    && (se.awsErrorDetails() == null
                            || !"NoSuchBucket".equals(se.awsErrorDetails().errorCode()))) {
                return new ObjectNotFoundException(key, e);
            }
            String code =
                    se.awsErrorDetails() == null ? "" : " " + se.awsErrorDetails().errorCode();
            return new ObjectStoreException(
                    key,
                    op
                            + " s3://"
                            + bucket
                            + " failed: HTTP "
                            + se.statusCode()
                            + code
                            + ": "
                            + se.getMessage(),
                    e);
        }
        return new ObjectStoreException(
                key, op + " s3://" + bucket + " failed: " + e.getMessage(), e);
    }
}
