package io.tierlog.common.testing;

import io.tierlog.common.MockTime;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link ScheduledExecutorService} whose tasks run only when a test moves its {@link MockTime}
 * with {@link #advance}, on the test's own thread (as Kafka's {@code MockScheduler} and Fluss's
 * manually triggered executor). Code under test keeps scheduling as in production (fixed-delay
 * housekeeping, one-shot deadlines), while the test decides when time passes, so no test waits for
 * a real timer.
 *
 * <p>{@link #advance(long)} moves the clock from due time to due time, running each task when the
 * clock reaches its due time (ties in scheduling order); a periodic task is due again a period
 * later. {@code execute} and {@code submit} are tasks due now, run by the next {@link #runDue()} or
 * {@link #advance}. A periodic task that throws is not run again (as in the JDK); {@code get()} on
 * its future then throws.
 *
 * <p>Thread-safe: any thread may schedule; tasks run on the thread that advances, one at a time.
 */
public final class ManualScheduler extends AbstractExecutorService
        implements ScheduledExecutorService {
    private final MockTime time;
    private final PriorityQueue<Task<?>> queue = new PriorityQueue<>();
    private final AtomicLong seq = new AtomicLong();
    private volatile boolean shutdown;

    public ManualScheduler(MockTime time) {
        this.time = time;
    }

    /** The clock this scheduler moves. */
    public MockTime time() {
        return time;
    }

    /**
     * Moves the clock forward by {@code ms}, running every task that falls due on the way, at its
     * due time; tasks scheduled by those tasks run too if due within the interval.
     */
    public void advance(long ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("cannot go back in time: " + ms);
        }
        long target = time.milliseconds() + ms;
        while (true) {
            Task<?> next;
            synchronized (this) {
                next = queue.peek();
                if (next == null || next.dueMs > target) {
                    break;
                }
                queue.poll();
            }
            long now = time.milliseconds();
            if (next.dueMs > now) {
                time.advance(next.dueMs - now);
            }
            next.runNow();
        }
        long now = time.milliseconds();
        if (target > now) {
            time.advance(target - now);
        }
    }

    /** Runs every task due at the current time, without moving the clock. */
    public void runDue() {
        advance(0);
    }

    /** How many tasks wait to run (periodic ones count once). */
    public synchronized int pending() {
        return (int) queue.stream().filter(t -> !t.isCancelled()).count();
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return enqueue(
                new Task<>(
                        () -> {
                            command.run();
                            return null;
                        },
                        due(delay, unit),
                        0,
                        false));
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return enqueue(new Task<>(callable, due(delay, unit), 0, false));
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(
            Runnable command, long initialDelay, long period, TimeUnit unit) {
        return enqueue(periodic(command, initialDelay, period, unit, true));
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(
            Runnable command, long initialDelay, long delay, TimeUnit unit) {
        return enqueue(periodic(command, initialDelay, delay, unit, false));
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.MILLISECONDS);
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public synchronized List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> left = new ArrayList<>();
        for (Task<?> t : queue) {
            left.add(t::runNow);
        }
        queue.clear();
        return left;
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return shutdown;
    }

    private Task<?> periodic(
            Runnable command, long initialDelay, long period, TimeUnit unit, boolean fixedRate) {
        if (period <= 0) {
            throw new IllegalArgumentException("period must be > 0, got " + period);
        }
        return new Task<>(
                () -> {
                    command.run();
                    return null;
                },
                due(initialDelay, unit),
                Math.max(1, unit.toMillis(period)),
                fixedRate);
    }

    private long due(long delay, TimeUnit unit) {
        return time.milliseconds() + Math.max(0, unit.toMillis(delay));
    }

    private <V> Task<V> enqueue(Task<V> t) {
        synchronized (this) {
            if (shutdown) {
                throw new RejectedExecutionException("the scheduler is shut down");
            }
            queue.add(t);
        }
        return t;
    }

    private synchronized void requeue(Task<?> t) {
        if (!shutdown) {
            queue.add(t);
        }
    }

    private synchronized void remove(Task<?> t) {
        queue.remove(t);
    }

    /** A scheduled task; its order is (due time, scheduling order). */
    private final class Task<V> implements ScheduledFuture<V> {
        private final Callable<V> body;
        private final long periodMs; // 0: one-shot
        private final boolean fixedRate;
        private final CompletableFuture<V> outcome = new CompletableFuture<>();
        private long dueMs; // guarded by the scheduler while queued
        private long order;

        Task(Callable<V> body, long dueMs, long periodMs, boolean fixedRate) {
            this.body = body;
            this.dueMs = dueMs;
            this.periodMs = periodMs;
            this.fixedRate = fixedRate;
            this.order = seq.incrementAndGet();
        }

        void runNow() {
            if (outcome.isDone()) {
                return; // cancelled
            }
            try {
                V v = body.call();
                if (periodMs == 0) {
                    outcome.complete(v);
                    return;
                }
            } catch (Throwable e) {
                outcome.completeExceptionally(e);
                return;
            }
            dueMs = fixedRate ? dueMs + periodMs : time.milliseconds() + periodMs;
            order = seq.incrementAndGet();
            if (!outcome.isDone()) {
                requeue(this);
            }
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(dueMs - time.milliseconds(), TimeUnit.MILLISECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            if (o instanceof Task<?> t) {
                int c = Long.compare(dueMs, t.dueMs);
                return c != 0 ? c : Long.compare(order, t.order);
            }
            return Long.compare(getDelay(TimeUnit.MILLISECONDS), o.getDelay(TimeUnit.MILLISECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = outcome.cancel(false);
            if (cancelled) {
                remove(this);
            }
            return cancelled;
        }

        @Override
        public boolean isCancelled() {
            return outcome.isCancelled();
        }

        @Override
        public boolean isDone() {
            return outcome.isDone();
        }

        @Override
        public V get() throws InterruptedException, ExecutionException {
            return outcome.get();
        }

        @Override
        public V get(long timeout, TimeUnit unit)
                throws InterruptedException, ExecutionException, TimeoutException {
            return outcome.get(timeout, unit);
        }
    }
}
