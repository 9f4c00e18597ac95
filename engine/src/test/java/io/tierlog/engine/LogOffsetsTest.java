package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Latest tiered (-5) and earliest pending upload (-6) as Kafka derives them. */
class LogOffsetsTest {
    @Test
    void nothingOffloadedYetHasNoLatestTieredAndPendsFromTheLogStart() {
        LogOffsets o = new LogOffsets(0, 0, 0, 0, 10);
        assertThat(o.latestTieredOffset()).isEqualTo(-1);
        assertThat(o.earliestPendingUploadOffset()).isZero();
    }

    @Test
    void afterAnOffloadLatestTieredIsItsLastOffsetAndPendingTheNext() {
        LogOffsets o = new LogOffsets(0, 0, 40, 25, 60);
        assertThat(o.latestTieredOffset()).isEqualTo(39);
        assertThat(o.earliestPendingUploadOffset()).isEqualTo(40);
    }

    @Test
    void pendingNeverPrecedesTheLogStartAndIsUnknownWhenTheHotTierLostDataNotKnownOffloaded() {
        assertThat(new LogOffsets(50, 50, 40, 50, 60).earliestPendingUploadOffset()).isEqualTo(50);
        assertThat(new LogOffsets(0, 0, 0, 30, 60).earliestPendingUploadOffset()).isEqualTo(-1);
    }
}
