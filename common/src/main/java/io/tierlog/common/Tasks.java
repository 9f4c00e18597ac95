package io.tierlog.common;

import java.util.function.Consumer;

/**
 * Guards for background work. A task given to {@link
 * java.util.concurrent.ScheduledExecutorService#scheduleWithFixedDelay} that throws is silently
 * never run again, and a throwable that escapes a thread's run loop ends the thread; either turns
 * one storage fault (an {@link InternalError} from a faulting memory-mapped page, an {@link
 * OutOfMemoryError} from direct buffers, an unexpected runtime exception) into a server that stops
 * housekeeping for good. Every periodic task and every loop body is therefore wrapped here:
 * whatever it throws is handed to a failure callback (which logs it) and the task stays scheduled.
 *
 * <p>Thread-safe (stateless).
 */
public final class Tasks {
    private Tasks() {}

    /**
     * A runnable that runs {@code task} and hands anything it throws, {@link Error}s included, to
     * {@code onFailure} instead of propagating it. A failing {@code onFailure} is ignored (it is
     * only a log call).
     */
    public static Runnable guarded(Runnable task, Consumer<Throwable> onFailure) {
        return () -> runGuarded(task, onFailure);
    }

    /** Runs {@code task} now, as {@link #guarded}; returns false when it threw. */
    public static boolean runGuarded(Runnable task, Consumer<Throwable> onFailure) {
        try {
            task.run();
            return true;
        } catch (Throwable t) { // every kind: a scheduled task that throws is never run again
            try {
                onFailure.accept(t);
            } catch (Throwable ignored) {
                // logging failed (out of memory?): the task must still stay scheduled
            }
            return false;
        }
    }
}
