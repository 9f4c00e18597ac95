package io.tierlog.common.testing;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Waiting in tests without sleeping as synchronisation: poll a condition until it holds or a
 * deadline passes. The first poll is immediate; later ones back off from 5 ms to 100 ms, so a fast
 * condition costs little and a slow one does not spin. A timeout is an {@link AssertionError} that
 * names what was awaited, how long, and the last value observed, e.g. {@code timed out after PT30S
 * waiting for offloaded to cold; last observed: lag=3}. {@link #atMost} is the same wait for a
 * caller that handles the timeout itself (a fault campaign that records a problem and goes on).
 *
 * <p>A probe may have side effects (poll a consumer and collect what it returns); it is called on
 * the caller's thread, never concurrently. An exception thrown by a probe ends the wait at once and
 * propagates unchanged: a probe that expects transient failures (a port not yet listening) catches
 * them itself and returns "not yet". An interrupt ends the wait with an {@link AssertionError}, the
 * interrupt flag set again.
 *
 * <p>Thread-safe: stateless.
 */
public final class Await {
    private static final long FIRST_PAUSE_NANOS = Duration.ofMillis(5).toNanos();
    private static final long MAX_PAUSE_NANOS = Duration.ofMillis(100).toNanos();

    /** A condition to poll; may throw {@code E}. */
    @FunctionalInterface
    public interface Condition<E extends Exception> {
        boolean holds() throws E;
    }

    /** A value to observe; may throw {@code E}. */
    @FunctionalInterface
    public interface Probe<T, E extends Exception> {
        T observe() throws E;
    }

    private Await() {}

    /**
     * Polls {@code condition} until it holds.
     *
     * @throws AssertionError when {@code timeout} passes first
     * @throws E what {@code condition} threw
     */
    public static <E extends Exception> void until(
            String what, Condition<E> condition, Duration timeout) throws E {
        until(what, condition::holds, Boolean::booleanValue, timeout);
    }

    /**
     * Polls {@code probe} until its value satisfies {@code done}, and returns that value; the
     * timeout message shows the last value observed.
     *
     * @throws AssertionError when {@code timeout} passes first
     * @throws E what {@code probe} threw
     */
    public static <T, E extends Exception> T until(
            String what, Probe<T, E> probe, Predicate<? super T> done, Duration timeout) throws E {
        Objects.requireNonNull(what, "what");
        Polled<T> last = poll(what, probe, done, timeout);
        if (!last.done) {
            throw new AssertionError(
                    "timed out after "
                            + timeout
                            + " waiting for "
                            + what
                            + "; last observed: "
                            + last.value);
        }
        return last.value;
    }

    /**
     * Polls {@code probe} until its value satisfies {@code done} or {@code timeout} passes, and
     * returns the last value observed, without failing: for a wait whose timeout the caller handles
     * itself (records a problem, falls back).
     *
     * @throws E what {@code probe} threw
     */
    public static <T, E extends Exception> T atMost(
            Duration timeout, Probe<T, E> probe, Predicate<? super T> done) throws E {
        return poll("a condition", probe, done, timeout).value;
    }

    private record Polled<T>(T value, boolean done) {}

    private static <T, E extends Exception> Polled<T> poll(
            String what, Probe<T, E> probe, Predicate<? super T> done, Duration timeout) throws E {
        long start = System.nanoTime();
        long pause = FIRST_PAUSE_NANOS;
        while (true) {
            T value = probe.observe();
            if (done.test(value)) {
                return new Polled<>(value, true);
            }
            long waited = System.nanoTime() - start;
            if (waited >= timeout.toNanos()) {
                return new Polled<>(value, false);
            }
            pause(Math.min(pause, timeout.toNanos() - waited), what);
            pause = Math.min(pause * 2, MAX_PAUSE_NANOS);
        }
    }

    private static void pause(long nanos, String what) {
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + what, e);
        }
    }
}
