package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.tierlog.cold.testing.FaultInjectingProxy;
import io.tierlog.common.Config;
import io.tierlog.s3.embedded.EmbeddedS3Server;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link S3ObjectStore} in front of a fault-injecting proxy in front of s3proxy: 500/503 answers,
 * slow responses, reset connections and an endpoint that is down are retried with backoff and the
 * store recovers with nothing lost; errors that retrying cannot fix surface with the key.
 */
class S3FaultInjectionIT {
    @TempDir static Path dir;
    @TempDir Path tmp;
    static EmbeddedS3Server server;
    static ObjectStore direct;
    FaultInjectingProxy proxy;
    S3ObjectStore store;

    @BeforeAll
    static void startServer() throws Exception {
        server = EmbeddedS3Server.start(dir);
        direct = S3ObjectStore.create(server.clientConfig());
    }

    @AfterAll
    static void stopServer() throws Exception {
        direct.close();
        server.close();
    }

    @BeforeEach
    void startProxy() throws Exception {
        proxy = FaultInjectingProxy.start(server.endpoint());
        store = S3ObjectStore.create(config(6, "2s"));
    }

    Config config(int attempts, String timeout) {
        return server.clientConfig(proxy.endpoint())
                .with(ColdTierOptions.S3_RETRY_MAX_ATTEMPTS.key(), Integer.toString(attempts))
                .with(ColdTierOptions.S3_RETRY_BACKOFF_MS.key(), "5ms")
                .with(ColdTierOptions.S3_RETRY_BACKOFF_MAX_MS.key(), "50ms")
                .with(ColdTierOptions.S3_REQUEST_TIMEOUT_MS.key(), timeout)
                .with(ColdTierOptions.S3_MULTIPART_THRESHOLD_BYTES.key(), "5MiB")
                .with(ColdTierOptions.S3_MULTIPART_PART_BYTES.key(), "5MiB");
    }

    @AfterEach
    void stopProxy() throws Exception {
        store.close();
        proxy.close();
    }

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    @Test
    void putSucceedsThroughServiceUnavailableAnswers() throws Exception {
        byte[] data = random(50_000, 1);
        proxy.failNext(3, 503);
        store.put("fault/put-503", data);
        assertThat(proxy.injectedFailures()).isEqualTo(3);
        assertThat(bytes(direct.get("fault/put-503"))).isEqualTo(data);
    }

    @Test
    void rangedGetSucceedsThroughInternalErrors() throws Exception {
        byte[] data = random(10_000, 2);
        direct.put("fault/get-500", data);
        proxy.failNext(2, 500);
        byte[] expected = new byte[100];
        System.arraycopy(data, 500, expected, 0, 100);
        assertThat(bytes(store.get("fault/get-500", 500, 100))).isEqualTo(expected);
        assertThat(proxy.injectedFailures()).isEqualTo(2);
    }

    @Test
    void multipartUploadSurvivesFailuresOfIndividualParts() throws Exception {
        byte[] data = random((11 << 20) + 17, 3);
        Path f = Files.write(tmp.resolve("big"), data);
        proxy.failEvery(2, 500); // create, parts and complete each fail once
        store.put("fault/multipart", f);
        proxy.heal();
        assertThat(proxy.injectedFailures()).isGreaterThanOrEqualTo(3);
        assertThat(bytes(direct.get("fault/multipart"))).isEqualTo(data);
    }

    @Test
    void slowResponsesTimeOutAndAreRetried() throws Exception {
        store.close();
        store = S3ObjectStore.create(config(6, "300ms"));
        direct.put("fault/slow", new byte[] {1, 2, 3});
        proxy.delayNext(2, Duration.ofMillis(1_500));
        assertThat(bytes(store.get("fault/slow"))).containsExactly(1, 2, 3);
        assertThat(proxy.requestCount()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void resetConnectionsAreRetried() throws Exception {
        proxy.resetNextConnections(3);
        store.put("fault/reset", new byte[] {9});
        assertThat(proxy.resetCount()).isEqualTo(3);
        assertThat(bytes(direct.get("fault/reset"))).containsExactly(9);
    }

    @Test
    void endpointDownFailsWithTheKeyAndRecoversWhenItComesBack() throws Exception {
        proxy.goDown();
        Throwable down = catchThrowable(() -> store.put("fault/down", new byte[] {1}));
        // Failed once in CI (the put succeeded within 25 ms); not reproduced since. The
        // description says whether the request reached the proxy at all.
        assertThat(down)
                .as(
                        "put while the proxy is down (proxy saw %d requests, forwarded %d)",
                        proxy.requestCount(), proxy.forwardedCount())
                .isInstanceOf(ObjectStoreException.class)
                .hasMessageContaining("fault/down");
        proxy.comeUp();
        store.put("fault/down", new byte[] {2});
        assertThat(bytes(direct.get("fault/down"))).containsExactly(2);
    }

    @Test
    void persistentServerErrorsExhaustRetriesWithTheKeyAndStatus() throws Exception {
        proxy.failAfter(0, 500);
        assertThatThrownBy(() -> store.put("fault/always-500", new byte[] {1}))
                .isInstanceOf(ObjectStoreException.class)
                .isNotInstanceOf(ObjectNotFoundException.class)
                .hasMessageContaining("fault/always-500")
                .hasMessageContaining("500");
        assertThat(proxy.injectedFailures()).isEqualTo(6); // s3.retry.max.attempts
        proxy.heal();
        store.put("fault/always-500", new byte[] {1});
    }

    @Test
    void notFoundIsNotRetried() throws Exception {
        assertThatThrownBy(() -> store.head("fault/missing"))
                .isInstanceOf(ObjectNotFoundException.class);
        assertThat(proxy.requestCount()).isEqualTo(1);
    }

    @Test
    void uploadCorruptedInFlightIsRejectedAndNeverStored() throws Exception {
        byte[] data = random(20_000, 4);
        proxy.corruptNextRequestBodies(1);
        // Over plain HTTP the payload hash is signed, so the server rejects the damaged body
        // (SignatureDoesNotMatch; BadDigest-style checksum errors are retried by the store).
        assertThatThrownBy(() -> store.put("fault/corrupt-put", data))
                .isInstanceOf(ObjectStoreException.class)
                .hasMessageContaining("fault/corrupt-put");
        assertThatThrownBy(() -> direct.head("fault/corrupt-put"))
                .isInstanceOf(ObjectNotFoundException.class);
        store.put("fault/corrupt-put", data);
        assertThat(bytes(direct.get("fault/corrupt-put"))).isEqualTo(data);
    }

    @Test
    void downloadCorruptedInFlightIsDetectedByTheChecksumAndRetried() throws Exception {
        byte[] data = random(20_000, 5);
        direct.put("fault/corrupt-get", data);
        proxy.corruptNextResponseBodies(1);
        assertThat(bytes(store.get("fault/corrupt-get"))).isEqualTo(data);
        assertThat(proxy.forwardedCount()).isGreaterThanOrEqualTo(2);
    }
}
