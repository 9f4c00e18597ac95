package io.tierlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import org.junit.jupiter.api.Test;

/** The token bucket's arithmetic, driven by a hand-moved clock. */
class UploadRateLimiterTest {
    @Test
    void aFullBucketLetsOneSecondOfBytesThroughAtOnceThenChargesTheDebt() {
        MockTime time = new MockTime(0);
        UploadRateLimiter limiter = new UploadRateLimiter(1000, time);
        assertThat(limiter.reserve(1000)).isZero();
        assertThat(limiter.reserve(500)).isEqualTo(500_000_000L);
        time.advance(500);
        assertThat(limiter.reserve(0)).isZero();
    }

    @Test
    void anObjectLargerThanTheBucketWaitsInProportionToItsSize() {
        MockTime time = new MockTime(0);
        UploadRateLimiter limiter = new UploadRateLimiter(1000, time);
        assertThat(limiter.reserve(5000)).isEqualTo(4_000_000_000L);
        time.advance(4000);
        assertThat(limiter.reserve(1)).isEqualTo(1_000_000L);
    }

    @Test
    void idleTimeRefillsAtMostOneSecond() {
        MockTime time = new MockTime(0);
        UploadRateLimiter limiter = new UploadRateLimiter(1000, time);
        limiter.reserve(1000);
        time.advance(60_000);
        assertThat(limiter.reserve(1000)).isZero();
        assertThat(limiter.reserve(1000)).isEqualTo(1_000_000_000L);
    }

    @Test
    void acquiringWaitsTheDebtOffOnTheInjectedClock() throws Exception {
        MockTime time = new MockTime(0);
        UploadRateLimiter limiter = new UploadRateLimiter(1000, time);
        limiter.acquire(1000);
        assertThat(time.milliseconds()).as("a full bucket: no wait").isZero();
        limiter.acquire(2500);
        assertThat(time.milliseconds()).as("2.5 s of debt waited off on the clock").isEqualTo(2500);
        assertThat(limiter.reserve(0)).isZero();
    }
}
