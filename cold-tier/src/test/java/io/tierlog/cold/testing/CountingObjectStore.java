package io.tierlog.cold.testing;

import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.ObjectStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Wraps an {@link ObjectStore} and counts GET requests and the bytes they returned, to prove that
 * readers fetch only what they need. Thread-safe.
 */
public final class CountingObjectStore implements ObjectStore {
    private final ObjectStore delegate;
    private final AtomicLong getRequests = new AtomicLong();
    private final AtomicLong bytesRead = new AtomicLong();
    private final java.util.Queue<String> log = new java.util.concurrent.ConcurrentLinkedQueue<>();

    public CountingObjectStore(ObjectStore delegate) {
        this.delegate = delegate;
    }

    public long getRequests() {
        return getRequests.get();
    }

    public long bytesRead() {
        return bytesRead.get();
    }

    /** The GETs made since the last reset, as "key@position+length" (or "key" for whole). */
    public List<String> requests() {
        return List.copyOf(log);
    }

    public void reset() {
        getRequests.set(0);
        bytesRead.set(0);
        log.clear();
    }

    @Override
    public void put(String key, Path file) throws IOException {
        delegate.put(key, file);
    }

    @Override
    public void put(String key, byte[] data) throws IOException {
        delegate.put(key, data);
    }

    @Override
    public ByteBuffer get(String key, long position, int length) throws IOException {
        ByteBuffer b = delegate.get(key, position, length);
        log.add(key + "@" + position + "+" + length);
        getRequests.incrementAndGet();
        bytesRead.addAndGet(b.remaining());
        return b;
    }

    @Override
    public ByteBuffer get(String key) throws IOException {
        ByteBuffer b = delegate.get(key);
        log.add(key);
        getRequests.incrementAndGet();
        bytesRead.addAndGet(b.remaining());
        return b;
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
        delegate.delete(key);
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
