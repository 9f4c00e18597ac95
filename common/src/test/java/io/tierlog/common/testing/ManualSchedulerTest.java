package io.tierlog.common.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tierlog.common.MockTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ManualSchedulerTest {
    final MockTime time = new MockTime(1_000);
    final ManualScheduler scheduler = new ManualScheduler(time);

    @Test
    void tasksRunAtTheirDueTimeInOrderAndOnlyWhenTheClockGetsThere() {
        List<String> ran = new ArrayList<>();
        scheduler.schedule(() -> ran.add("b@" + time.milliseconds()), 20, TimeUnit.MILLISECONDS);
        scheduler.schedule(() -> ran.add("a@" + time.milliseconds()), 10, TimeUnit.MILLISECONDS);
        scheduler.execute(() -> ran.add("now@" + time.milliseconds()));
        scheduler.advance(9);
        assertEquals(List.of("now@1000"), ran);
        scheduler.advance(1);
        assertEquals(List.of("now@1000", "a@1010"), ran);
        scheduler.advance(100);
        assertEquals(List.of("now@1000", "a@1010", "b@1020"), ran);
        assertEquals(1110, time.milliseconds());
    }

    @Test
    void aFixedDelayTaskRunsOncePerPeriodAndNotAfterCancel() {
        List<Long> ran = new ArrayList<>();
        ScheduledFuture<?> f =
                scheduler.scheduleWithFixedDelay(
                        () -> ran.add(time.milliseconds()), 5, 10, TimeUnit.MILLISECONDS);
        scheduler.advance(30);
        assertEquals(List.of(1005L, 1015L, 1025L), ran);
        f.cancel(false);
        scheduler.advance(100);
        assertEquals(3, ran.size());
        assertTrue(f.isCancelled());
        assertEquals(0, scheduler.pending());
    }

    @Test
    void aTaskScheduledByATaskRunsWithinTheSameAdvanceWhenDue() {
        List<Long> ran = new ArrayList<>();
        scheduler.schedule(
                () ->
                        scheduler.schedule(
                                () -> ran.add(time.milliseconds()), 5, TimeUnit.MILLISECONDS),
                5,
                TimeUnit.MILLISECONDS);
        scheduler.advance(10);
        assertEquals(List.of(1010L), ran);
    }
}
