package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failed fsync is sticky: a waiter that comes after it must not be acknowledged by an fsync that
 * "succeeds" for pages the kernel may already have dropped, until the log was recovered.
 */
class GroupCommitFailureTest {
    @TempDir Path tmp;

    @Test
    void afterAFailedFsyncEveryWaiterFailsUntilReset() throws Exception {
        LogConfig config = LogConfig.from(Map.of());
        OpenFiles files = OpenFiles.bounded(0);
        LogSegment broken = LogSegment.create(tmp, 0, config, files);
        LogSegment healthy = LogSegment.create(tmp, 100, config, files);
        broken.file().markUnflushed();
        broken.file().close(); // force() now fails with ClosedChannelException, an IOException
        AtomicReference<LogSegment> current = new AtomicReference<>(broken);
        AtomicReference<Long> published = new AtomicReference<>(-1L);
        GroupCommit gc =
                new GroupCommit(
                        () -> new GroupCommit.Capture(current.get(), 0, 10),
                        (s, pos, next) -> published.set(next),
                        0);
        assertThatThrownBy(() -> gc.awaitDurable(5)).isInstanceOf(IOException.class);
        current.set(healthy);
        assertThatThrownBy(() -> gc.awaitDurable(5))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("earlier fsync");
        assertThat(published.get()).isEqualTo(-1L);
        gc.reset(0);
        gc.awaitDurable(5);
        assertThat(published.get()).isEqualTo(10L);
        healthy.close();
    }
}
