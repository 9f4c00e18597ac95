package io.tierlog.cold;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * An {@link ObjectStore} that keeps the results of GETs (ranged and whole) in memory, bounded by
 * {@code cold.cache.bytes} (Caffeine, size-weighted, W-TinyLFU eviction). Cold objects are written
 * once under unique keys and never modified, so cached bytes never go stale; a {@code put} or
 * {@code delete} through this store still drops the key's entries. Repeated reads of the same
 * offsets of an object (footer, page indexes, pages) cost no request.
 *
 * <p>Returned buffers are read-only views of the cached bytes. Thread-safe.
 */
public final class CachingObjectStore implements ObjectStore {
    private static final int ENTRY_OVERHEAD = 96;

    private record Range(String key, long position, int length) {}

    private final ObjectStore delegate;
    private final Cache<Range, ByteBuffer> cache;
    private final boolean enabled;

    /** Caches up to {@code maxBytes} of GET results of {@code delegate} (0 = no caching). */
    public CachingObjectStore(ObjectStore delegate, long maxBytes) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        if (maxBytes < 0) {
            throw new IllegalArgumentException("negative cache size " + maxBytes);
        }
        this.enabled = maxBytes > 0;
        this.cache =
                Caffeine.newBuilder()
                        .maximumWeight(maxBytes)
                        .executor(Runnable::run) // evict on the caller's thread: bound holds
                        .weigher(
                                (Range r, ByteBuffer b) ->
                                        (int)
                                                Math.min(
                                                        Integer.MAX_VALUE,
                                                        b.capacity() + ENTRY_OVERHEAD))
                        .recordStats()
                        .build();
    }

    /** Wraps {@code delegate} with a cache of {@code cold.cache.bytes}. */
    public static CachingObjectStore create(ObjectStore delegate, ColdTierOptions options) {
        return new CachingObjectStore(delegate, options.cacheBytes());
    }

    /** GETs answered from memory. */
    public long hitCount() {
        return cache.stats().hitCount();
    }

    /** GETs that went to the underlying store. */
    public long missCount() {
        return cache.stats().missCount();
    }

    /** Bytes currently cached (approximately, including per-entry overhead). */
    public long weightedSize() {
        return cache.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
    }

    @Override
    public void put(String key, Path file) throws IOException {
        invalidate(key);
        delegate.put(key, file);
    }

    @Override
    public void put(String key, byte[] data) throws IOException {
        invalidate(key);
        delegate.put(key, data);
    }

    @Override
    public ByteBuffer get(String key, long position, int length) throws IOException {
        return cached(new Range(key, position, length));
    }

    @Override
    public ByteBuffer get(String key) throws IOException {
        return cached(new Range(key, -1, -1));
    }

    private ByteBuffer cached(Range r) throws IOException {
        if (!enabled) {
            return r.position() < 0
                    ? delegate.get(r.key())
                    : delegate.get(r.key(), r.position(), r.length());
        }
        ByteBuffer hit = cache.getIfPresent(r);
        if (hit != null) {
            return hit.asReadOnlyBuffer();
        }
        // Concurrent misses of one range may both fetch; that costs a request, never correctness.
        ByteBuffer fetched =
                r.position() < 0
                        ? delegate.get(r.key())
                        : delegate.get(r.key(), r.position(), r.length());
        ByteBuffer copy = ByteBuffer.allocate(fetched.remaining());
        copy.put(fetched.duplicate()).flip();
        cache.put(r, copy);
        return copy.asReadOnlyBuffer();
    }

    @Override
    public ObjectInfo head(String key) throws IOException {
        return delegate.head(key);
    }

    @Override
    public List<ObjectInfo> list(String prefix) throws IOException {
        return delegate.list(prefix);
    }

    @Override
    public void delete(String key) throws IOException {
        invalidate(key);
        delegate.delete(key);
        invalidate(key);
    }

    private void invalidate(String key) {
        cache.asMap().keySet().removeIf(r -> r.key().equals(key));
    }

    /** Drops the cache and closes the underlying store. */
    @Override
    public void close() throws IOException {
        cache.invalidateAll();
        delegate.close();
    }
}
