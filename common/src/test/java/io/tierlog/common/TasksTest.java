package io.tierlog.common;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tierlog.common.testing.Await;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TasksTest {
    @Test
    void aGuardedTaskThatThrowsErrorsKeepsBeingScheduled() throws Exception {
        ScheduledExecutorService ses = Executors.newSingleThreadScheduledExecutor();
        try {
            AtomicInteger runs = new AtomicInteger();
            AtomicInteger failures = new AtomicInteger();
            ses.scheduleWithFixedDelay(
                    Tasks.guarded(
                            () -> {
                                int n = runs.incrementAndGet();
                                if (n % 2 == 1) {
                                    throw new InternalError("a fault in a recent unsafe access");
                                }
                                throw new IllegalStateException("run " + n);
                            },
                            e -> failures.incrementAndGet()),
                    0,
                    5,
                    TimeUnit.MILLISECONDS);
            Await.until("5 runs", runs::get, n -> n >= 5, Duration.ofSeconds(10));
            assertTrue(failures.get() >= 4);
        } finally {
            ses.shutdownNow();
        }
    }

    @Test
    void anUnguardedTaskThatThrowsIsNeverRunAgain() throws Exception {
        // The reason for Tasks: the executor's own behaviour, shown so the guard is not removed.
        ScheduledExecutorService ses = Executors.newSingleThreadScheduledExecutor();
        try {
            AtomicInteger runs = new AtomicInteger();
            var f =
                    ses.scheduleWithFixedDelay(
                            () -> {
                                runs.incrementAndGet();
                                throw new InternalError("boom");
                            },
                            0,
                            1,
                            TimeUnit.MILLISECONDS);
            Await.until("the task to be cancelled by its throw", f::isDone, Duration.ofSeconds(10));
            assertTrue(runs.get() == 1);
        } finally {
            ses.shutdownNow();
        }
    }

    @Test
    void aFailingFailureCallbackIsContained() {
        assertFalse(
                Tasks.runGuarded(
                        () -> {
                            throw new OutOfMemoryError("Direct buffer memory");
                        },
                        e -> {
                            throw new RuntimeException("logger broken");
                        }));
    }
}
