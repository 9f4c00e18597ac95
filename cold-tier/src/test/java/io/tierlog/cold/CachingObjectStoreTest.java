package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.cold.testing.CountingObjectStore;
import io.tierlog.cold.testing.LocalDirObjectStore;
import io.tierlog.cold.testing.TestBatches;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GET cache in front of an object store: hits cost no request, writes invalidate, size bound.
 */
class CachingObjectStoreTest {
    @TempDir Path dir;
    CountingObjectStore backing;

    @BeforeEach
    void setUp() throws Exception {
        backing = new CountingObjectStore(new LocalDirObjectStore(dir.resolve("store")));
    }

    @Test
    void repeatedRangedGetIsServedFromMemory() throws Exception {
        CachingObjectStore cache = new CachingObjectStore(backing, 1 << 20);
        cache.put("k", new byte[] {1, 2, 3, 4, 5});
        ByteBuffer first = cache.get("k", 1, 3);
        ByteBuffer second = cache.get("k", 1, 3);
        assertThat(backing.getRequests()).isEqualTo(1);
        assertThat(second).isEqualTo(first);
        assertThat(second.isReadOnly()).isTrue();
        assertThat(cache.hitCount()).isEqualTo(1);
    }

    @Test
    void putAndDeleteDropCachedRangesOfTheKey() throws Exception {
        CachingObjectStore cache = new CachingObjectStore(backing, 1 << 20);
        cache.put("k", new byte[] {1, 2, 3});
        assertThat(cache.get("k").get(0)).isEqualTo((byte) 1);
        cache.put("k", new byte[] {9, 2, 3});
        assertThat(cache.get("k").get(0)).isEqualTo((byte) 9);
        cache.delete("k");
        assertThatThrownBy(() -> cache.get("k")).isInstanceOf(ObjectNotFoundException.class);
    }

    @Test
    void cacheStaysWithinItsByteBound() throws Exception {
        CachingObjectStore cache = new CachingObjectStore(backing, 64 * 1024);
        for (int i = 0; i < 50; i++) {
            cache.put("k" + i, new byte[8 * 1024]);
            cache.get("k" + i);
        }
        cache.get("k0"); // forces pending maintenance
        assertThat(cache.weightedSize()).isLessThanOrEqualTo(64 * 1024);
    }

    @Test
    void zeroBytesMeansNoCaching() throws Exception {
        CachingObjectStore cache = new CachingObjectStore(backing, 0);
        cache.put("k", new byte[] {1});
        cache.get("k");
        cache.get("k");
        assertThat(backing.getRequests()).isEqualTo(2);
    }

    @Test
    void secondReadOfTheSameOffsetsThroughTheCacheMakesNoRequest() throws Exception {
        List<MemoryRecords> input =
                TestBatches.uniformBatches(0, 200, 50, 100, CompressionType.LZ4, 3);
        Path local = dir.resolve("o.parquet");
        WrittenObject w;
        try (ParquetLogWriter writer =
                ParquetLogWriter.open(local, "t", 0, ColdTierOptions.defaults())) {
            for (MemoryRecords m : input) {
                writer.append(m.firstBatch());
            }
            w = writer.finish();
        }
        backing.put("t/0/o.parquet", local);
        CachingObjectStore cache = new CachingObjectStore(backing, 64 << 20);
        MemoryRecords a =
                new ParquetLogReader(cache, "t/0/o.parquet", w.sizeInBytes()).read(5_000, 4096);
        long requests = backing.getRequests();
        MemoryRecords b =
                new ParquetLogReader(cache, "t/0/o.parquet", w.sizeInBytes()).read(5_000, 4096);
        assertThat(backing.getRequests()).isEqualTo(requests);
        assertThat(b.buffer()).isEqualTo(a.buffer());
    }
}
