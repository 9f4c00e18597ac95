package io.tierlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.MockTime;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Retries, their backoff and their deadline, all measured on the injected clock. */
class RetrierTest {
    final MockTime time = new MockTime(0);
    final CountDownLatch stopped = new CountDownLatch(1);
    final Retrier retrier =
            new Retrier(
                    new Backoff(Duration.ofMillis(100), Duration.ofMillis(1000)),
                    Duration.ofSeconds(10),
                    time,
                    stopped);

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS) // a clock that never moved would retry forever
    void aCallThatKeepsFailingIsGivenUpWhenTheRetryTimeoutPassesOnTheClock() {
        List<Long> attempts = new ArrayList<>();
        assertThatThrownBy(
                        () ->
                                retrier.run(
                                        "upload",
                                        () -> {
                                            attempts.add(time.milliseconds());
                                            throw new IOException("store down");
                                        },
                                        Retrier::io))
                .isInstanceOf(IOException.class);
        assertThat(time.milliseconds()).as("gave up at the deadline").isEqualTo(10_000);
        assertThat(attempts).hasSizeGreaterThan(2);
        for (int i = 1; i < attempts.size(); i++) {
            assertThat(attempts.get(i))
                    .as("each retry after a backoff")
                    .isGreaterThan(attempts.get(i - 1));
        }
    }

    @Test
    void aCallThatRecoversReturnsItsResult() throws Exception {
        int[] calls = {0};
        String r =
                retrier.run(
                        "commit",
                        () -> {
                            if (++calls[0] < 3) {
                                throw new IOException("flaky");
                            }
                            return "done";
                        },
                        Retrier::io);
        assertThat(r).isEqualTo("done");
        assertThat(calls[0]).isEqualTo(3);
        assertThat(time.milliseconds()).isPositive().isLessThan(10_000);
    }

    @Test
    void aFailureThatIsNotRetriableIsThrownAtOnce() {
        assertThatThrownBy(
                        () ->
                                retrier.run(
                                        "upload",
                                        () -> {
                                            throw new IllegalStateException("bug");
                                        },
                                        Retrier::io))
                .isInstanceOf(IllegalStateException.class);
        assertThat(time.milliseconds()).isZero();
    }
}
