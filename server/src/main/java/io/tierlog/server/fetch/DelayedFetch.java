package io.tierlog.server.fetch;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A long-poll fetch parked until its partitions hold {@code min_bytes} or {@code max_wait_ms}
 * passes. Appends wake it (through {@link FetchWaiters}); each wake re-reads on the connection's
 * event loop, coalescing bursts of appends into one read. Completes exactly once.
 *
 * <p>Thread-safe: {@link #wake()} may be called from any thread; all other work runs on the
 * connection's event loop.
 */
final class DelayedFetch implements FetchWaiters.Waiter {
    private final FetchReader reader;
    private final int minBytes;
    private final int maxWaitMs;
    private final FetchWaiters waiters;
    private final EventExecutor executor;
    private final List<TopicPartition> partitions;
    private final CompletableFuture<ApiMessage> future = new CompletableFuture<>();
    private final AtomicBoolean wakePending = new AtomicBoolean();
    private final io.netty.util.concurrent.Future<?> connectionClosed;
    private ScheduledFuture<?> timeout;
    private boolean done;

    DelayedFetch(
            FetchReader reader,
            int minBytes,
            int maxWaitMs,
            FetchWaiters waiters,
            EventExecutor executor,
            io.netty.util.concurrent.Future<?> connectionClosed) {
        this.reader = reader;
        this.minBytes = minBytes;
        this.maxWaitMs = maxWaitMs;
        this.waiters = waiters;
        this.executor = executor;
        this.partitions = reader.partitions();
        this.connectionClosed = connectionClosed;
    }

    CompletableFuture<ApiMessage> start() {
        waiters.register(partitions, this);
        timeout = executor.schedule(this::expire, maxWaitMs, TimeUnit.MILLISECONDS);
        // A peer that hangs up must not leave its fetch parked for max_wait_ms.
        connectionClosed.addListener(f -> executor.execute(this::abandon));
        // An append between the first read and the registration would not wake us: check once.
        wake();
        return future;
    }

    @Override
    public void wake() {
        if (wakePending.compareAndSet(false, true)) {
            executor.execute(this::check);
        }
    }

    private void check() {
        wakePending.set(false);
        if (done) {
            return;
        }
        try {
            FetchReader.Result r = reader.read();
            if (r.bytes() >= minBytes || r.hasError()) {
                finish(r);
            }
        } catch (Throwable t) { // else the fetch is never answered and its connection stalls
            fail(t);
        }
    }

    private void expire() {
        if (!done) {
            try {
                finish(reader.read());
            } catch (Throwable t) {
                fail(t);
            }
        }
    }

    /** Completes the fetch exceptionally: the connection handler closes that connection only. */
    private void fail(Throwable t) {
        done = true;
        waiters.unregister(partitions, this);
        if (timeout != null) {
            timeout.cancel(false);
        }
        future.completeExceptionally(t);
    }

    private void abandon() {
        if (!done) {
            done = true;
            waiters.unregister(partitions, this);
            timeout.cancel(false);
            future.complete(null);
        }
    }

    private void finish(FetchReader.Result r) {
        done = true;
        waiters.unregister(partitions, this);
        if (timeout != null) {
            timeout.cancel(false);
        }
        future.complete(r.response());
    }
}
