package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@link ObjectStore} contract, run against every implementation (in-process s3proxy,
 * LocalStack, any endpoint given by environment variables). Each test works under a fresh random
 * prefix and deletes what it wrote, so the suite can run against a shared bucket.
 */
public abstract class ObjectStoreContract {
    /**
     * Multipart threshold and part size that implementations under test must be configured with.
     */
    protected static final long MULTIPART_THRESHOLD = 5L << 20;

    @TempDir Path tmp;
    protected ObjectStore store;
    protected String prefix;

    /** A store with {@code s3.multipart.threshold.bytes} = {@link #MULTIPART_THRESHOLD}. */
    protected abstract ObjectStore createStore() throws Exception;

    @BeforeEach
    void setUpStore() throws Exception {
        store = createStore();
        prefix = "contract-" + UUID.randomUUID() + "/";
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (store != null) {
            for (ObjectInfo o : store.list(prefix)) {
                store.delete(o.key());
            }
            store.close();
        }
    }

    private static byte[] randomBytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Test
    void putBytesThenGetReturnsTheSameBytes() throws IOException {
        byte[] data = randomBytes(100_000, 1);
        store.put(prefix + "a.bin", data);
        assertThat(bytes(store.get(prefix + "a.bin"))).isEqualTo(data);
        assertThat(store.head(prefix + "a.bin").size()).isEqualTo(data.length);
    }

    @Test
    void emptyObjectRoundTrips() throws IOException {
        store.put(prefix + "empty", new byte[0]);
        assertThat(store.get(prefix + "empty").remaining()).isZero();
        assertThat(store.head(prefix + "empty").size()).isZero();
    }

    @Test
    void putOfExistingKeyReplacesTheObject() throws IOException {
        store.put(prefix + "k", "first".getBytes(StandardCharsets.UTF_8));
        store.put(prefix + "k", "second!".getBytes(StandardCharsets.UTF_8));
        assertThat(new String(bytes(store.get(prefix + "k")), StandardCharsets.UTF_8))
                .isEqualTo("second!");
    }

    @Test
    void smallFileIsUploadedInOnePut() throws IOException {
        byte[] data = randomBytes(1 << 20, 2);
        Path f = Files.write(tmp.resolve("small"), data);
        store.put(prefix + "small.parquet", f);
        assertThat(bytes(store.get(prefix + "small.parquet"))).isEqualTo(data);
    }

    @Test
    void fileAboveMultipartThresholdRoundTripsThroughParts() throws IOException {
        // 12 MiB + 123 bytes with 5 MiB parts: three parts, the last one short.
        byte[] data = randomBytes((12 << 20) + 123, 3);
        Path f = Files.write(tmp.resolve("big"), data);
        store.put(prefix + "big.parquet", f);
        assertThat(store.head(prefix + "big.parquet").size()).isEqualTo(data.length);
        assertThat(bytes(store.get(prefix + "big.parquet"))).isEqualTo(data);
        // A ranged read across a part boundary.
        int pos = (5 << 20) - 10;
        ByteBuffer range = store.get(prefix + "big.parquet", pos, 20);
        byte[] expected = new byte[20];
        System.arraycopy(data, pos, expected, 0, 20);
        assertThat(bytes(range)).isEqualTo(expected);
    }

    @Test
    void rangedGetReturnsExactlyTheRequestedBytes() throws IOException {
        byte[] data = randomBytes(10_000, 4);
        store.put(prefix + "r", data);
        for (int[] r : new int[][] {{0, 1}, {0, 10_000}, {1234, 100}, {9_999, 1}}) {
            byte[] expected = new byte[r[1]];
            System.arraycopy(data, r[0], expected, 0, r[1]);
            assertThat(bytes(store.get(prefix + "r", r[0], r[1])))
                    .as("range %d+%d", r[0], r[1])
                    .isEqualTo(expected);
        }
    }

    @Test
    void partsOfOneRangedGetHoldTheirBytesAndSkippedGapsAreNull() throws IOException {
        byte[] data = randomBytes(3 << 20, 6);
        store.put(prefix + "parts", data);
        int[] lengths = {1000, -5000, 1 << 20, -1, 700_000, 1};
        ByteBuffer[] parts = store.getParts(prefix + "parts", 4321, lengths);
        assertThat(parts).hasSize(lengths.length);
        int at = 4321;
        for (int i = 0; i < lengths.length; i++) {
            int n = Math.abs(lengths[i]);
            if (lengths[i] < 0) {
                assertThat(parts[i]).as("skipped part %d", i).isNull();
            } else {
                byte[] expected = new byte[n];
                System.arraycopy(data, at, expected, 0, n);
                assertThat(bytes(parts[i])).as("part %d", i).isEqualTo(expected);
            }
            at += n;
        }
    }

    @Test
    void partsCanBeReadIntoBuffersTheCallerAllocates() throws IOException {
        byte[] data = randomBytes(200_000, 7);
        store.put(prefix + "arena", data);
        ByteBuffer slab = ByteBuffer.allocate(300_000);
        slab.position(17); // parts start inside a larger array, not at its offset 0
        ByteBuffer[] parts =
                store.getParts(
                        prefix + "arena",
                        100,
                        new int[] {50_000, -10, 60_000},
                        n -> {
                            ByteBuffer b = slab.slice();
                            b.limit(n);
                            slab.position(slab.position() + n);
                            return b.slice();
                        });
        assertThat(parts[0].array()).isSameAs(slab.array());
        assertThat(bytes(parts[0])).isEqualTo(java.util.Arrays.copyOfRange(data, 100, 50_100));
        assertThat(parts[1]).isNull();
        assertThat(bytes(parts[2])).isEqualTo(java.util.Arrays.copyOfRange(data, 50_110, 110_110));
    }

    @Test
    void partsReachingPastTheEndFailWithTheKey() throws IOException {
        store.put(prefix + "short-parts", new byte[1000]);
        assertThatThrownBy(() -> store.getParts(prefix + "short-parts", 500, new int[] {100, 600}))
                .isInstanceOf(ObjectStoreException.class)
                .hasMessageContaining(prefix + "short-parts");
    }

    @Test
    void rangedGetPastTheEndReturnsTheTail() throws IOException {
        byte[] data = randomBytes(1000, 5);
        store.put(prefix + "t", data);
        byte[] expected = new byte[100];
        System.arraycopy(data, 900, expected, 0, 100);
        assertThat(bytes(store.get(prefix + "t", 900, 500))).isEqualTo(expected);
    }

    @Test
    void rangedGetStartingAtOrPastTheEndFailsWithTheKey() throws IOException {
        store.put(prefix + "short", new byte[10]);
        assertThatThrownBy(() -> store.get(prefix + "short", 10, 5))
                .isInstanceOf(ObjectStoreException.class)
                .isNotInstanceOf(ObjectNotFoundException.class)
                .hasMessageContaining(prefix + "short");
    }

    @Test
    void missingObjectIsReportedAsNotFoundWithTheKey() {
        String key = prefix + "does-not-exist";
        assertThatThrownBy(() -> store.head(key))
                .isInstanceOf(ObjectNotFoundException.class)
                .hasMessageContaining(key)
                .extracting(e -> ((ObjectStoreException) e).key())
                .isEqualTo(key);
        assertThatThrownBy(() -> store.get(key))
                .isInstanceOf(ObjectNotFoundException.class)
                .hasMessageContaining(key);
        assertThatThrownBy(() -> store.get(key, 0, 10))
                .isInstanceOf(ObjectNotFoundException.class)
                .hasMessageContaining(key);
    }

    @Test
    void deleteRemovesTheObjectAndIsIdempotent() throws IOException {
        store.put(prefix + "d", new byte[] {1, 2, 3});
        store.delete(prefix + "d");
        assertThatThrownBy(() -> store.head(prefix + "d"))
                .isInstanceOf(ObjectNotFoundException.class);
        store.delete(prefix + "d");
        store.delete(prefix + "never-existed");
    }

    @Test
    void listReturnsOnlyKeysUnderThePrefixSortedWithSizes() throws IOException {
        store.put(prefix + "p/b", new byte[2]);
        store.put(prefix + "p/a", new byte[1]);
        store.put(prefix + "p/c/d", new byte[3]);
        store.put(prefix + "q/a", new byte[4]);
        List<ObjectInfo> listed = store.list(prefix + "p/");
        assertThat(listed)
                .extracting(ObjectInfo::key)
                .containsExactly(prefix + "p/a", prefix + "p/b", prefix + "p/c/d");
        assertThat(listed).extracting(ObjectInfo::size).containsExactly(1L, 2L, 3L);
        assertThat(store.list(prefix + "nothing/")).isEmpty();
    }

    @Test
    void listReturnsEveryPageBeyondOneThousandKeys() throws Exception {
        int n = 1_005; // S3 pages hold at most 1000 keys
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String key = prefix + String.format("many/%05d", i);
                fs.add(
                        pool.submit(
                                () -> {
                                    store.put(key, new byte[] {7});
                                    return null;
                                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        List<ObjectInfo> listed = store.list(prefix + "many/");
        assertThat(listed).hasSize(n);
        assertThat(listed.get(0).key()).isEqualTo(prefix + "many/00000");
        assertThat(listed.get(n - 1).key()).isEqualTo(prefix + String.format("many/%05d", n - 1));
    }

    @Test
    void keysInTheColdLayoutAndWithSpecialCharactersWork() throws IOException {
        String layoutKey = ObjectKeys.newKey(prefix + "tier", "my.topic_1-x", 7, 0, 99);
        String odd = prefix + "odd key+with=chars&ü%20.bin";
        store.put(layoutKey, new byte[] {1});
        store.put(odd, new byte[] {2});
        assertThat(bytes(store.get(layoutKey))).containsExactly(1);
        assertThat(bytes(store.get(odd))).containsExactly(2);
        assertThat(store.list(prefix)).extracting(ObjectInfo::key).contains(layoutKey, odd);
    }
}
