package io.tierlog.engine;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.ObjectStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;

/**
 * An {@link ObjectStore} decorator that counts requests and failures and times every request per
 * operation ({@link MetricNames#S3_REQUESTS}, {@link MetricNames#S3_ERRORS}, {@link
 * MetricNames#S3_LATENCY}), and counts bytes read. Closing it closes the delegate.
 *
 * <p>Thread-safe if the delegate is.
 */
final class MeteredObjectStore implements ObjectStore {
    private interface Call<T> {
        T run() throws IOException;
    }

    private record OpMeters(Counter requests, Counter errors, Timer latency) {}

    private final ObjectStore delegate;
    private final MeterRegistry registry;
    private final Map<String, OpMeters> meters = new ConcurrentHashMap<>();
    private final Counter bytesRead;

    MeteredObjectStore(ObjectStore delegate, MeterRegistry registry) {
        this.delegate = delegate;
        this.registry = registry;
        this.bytesRead = registry.counter(MetricNames.S3_BYTES_READ);
        for (String op : List.of("put", "get", "head", "list", "delete")) {
            op(op);
        }
    }

    private OpMeters op(String op) {
        return meters.computeIfAbsent(
                op,
                o ->
                        new OpMeters(
                                registry.counter(MetricNames.S3_REQUESTS, "op", o),
                                registry.counter(MetricNames.S3_ERRORS, "op", o),
                                Timer.builder(MetricNames.S3_LATENCY)
                                        .tag("op", o)
                                        .publishPercentileHistogram(false)
                                        .register(registry)));
    }

    private <T> T call(String op, Call<T> call) throws IOException {
        OpMeters m = op(op);
        m.requests().increment();
        long start = System.nanoTime();
        try {
            return call.run();
        } catch (IOException | RuntimeException e) {
            m.errors().increment();
            throw e;
        } finally {
            m.latency()
                    .record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void put(String key, Path file) throws IOException {
        call(
                "put",
                () -> {
                    delegate.put(key, file);
                    return null;
                });
    }

    @Override
    public void put(String key, byte[] data) throws IOException {
        call(
                "put",
                () -> {
                    delegate.put(key, data);
                    return null;
                });
    }

    @Override
    public ByteBuffer get(String key, long position, int length) throws IOException {
        ByteBuffer b = call("get", () -> delegate.get(key, position, length));
        bytesRead.increment(b.remaining());
        return b;
    }

    @Override
    public ByteBuffer[] getParts(
            String key, long position, int[] lengths, IntFunction<ByteBuffer> allocate)
            throws IOException {
        ByteBuffer[] parts = call("get", () -> delegate.getParts(key, position, lengths, allocate));
        long n = 0;
        for (ByteBuffer b : parts) {
            n += b == null ? 0 : b.remaining();
        }
        bytesRead.increment(n);
        return parts;
    }

    @Override
    public ByteBuffer get(String key) throws IOException {
        ByteBuffer b = call("get", () -> delegate.get(key));
        bytesRead.increment(b.remaining());
        return b;
    }

    @Override
    public ObjectInfo head(String key) throws IOException {
        return call("head", () -> delegate.head(key));
    }

    @Override
    public List<ObjectInfo> list(String prefix) throws IOException {
        return call("list", () -> delegate.list(prefix));
    }

    @Override
    public void delete(String key) throws IOException {
        call(
                "delete",
                () -> {
                    delegate.delete(key);
                    return null;
                });
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
