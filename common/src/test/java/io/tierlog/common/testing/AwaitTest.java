package io.tierlog.common.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AwaitTest {
    @Test
    void returnsTheFirstValueThatSatisfiesTheCondition() {
        AtomicInteger polls = new AtomicInteger();
        int v =
                Await.until(
                        "three polls", polls::incrementAndGet, n -> n >= 3, Duration.ofSeconds(10));
        assertThat(v).isEqualTo(3);
        assertThat(polls).hasValue(3);
    }

    @Test
    void aConditionThatAlreadyHoldsIsPolledOnce() {
        AtomicInteger polls = new AtomicInteger();
        Await.until("nothing", () -> polls.incrementAndGet() > 0, Duration.ZERO);
        assertThat(polls).hasValue(1);
    }

    @Test
    void aTimeoutNamesWhatWasAwaitedAndTheLastValue() {
        AtomicInteger polls = new AtomicInteger();
        assertThatThrownBy(
                        () ->
                                Await.until(
                                        "the lag to reach zero",
                                        () -> "lag=" + (100 - polls.incrementAndGet()),
                                        s -> s.equals("lag=0"),
                                        Duration.ofMillis(50)))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("timed out after PT0.05S waiting for the lag to reach zero")
                .hasMessageEndingWith("last observed: lag=" + (100 - polls.get()));
        assertThat(polls.get()).isGreaterThan(1);
    }

    @Test
    void anExceptionOfTheProbeEndsTheWaitUnchanged() {
        IOException boom = new IOException("boom");
        assertThatThrownBy(
                        () ->
                                Await.until(
                                        "never",
                                        () -> {
                                            throw boom;
                                        },
                                        Duration.ofSeconds(10)))
                .isSameAs(boom);
    }

    @Test
    void anInterruptEndsTheWaitAndKeepsTheFlag() {
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> Await.until("never", () -> false, Duration.ofSeconds(10)))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("interrupted while waiting for never");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void atMostReturnsTheLastValueWithoutFailing() {
        AtomicInteger polls = new AtomicInteger();
        int v = Await.atMost(Duration.ofMillis(30), polls::incrementAndGet, n -> n < 0);
        assertThat(v).isEqualTo(polls.get()).isGreaterThan(1);
        assertThat(Await.atMost(Duration.ofSeconds(10), () -> 7, n -> n == 7)).isEqualTo(7);
    }
}
