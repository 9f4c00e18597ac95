package io.tierlog.server.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/** Reading resumes only when no handler holds it paused: one's resume never undoes another's. */
class ReadGateTest {
    @Test
    void readingResumesOnlyWhenEveryReasonIsReleased() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ReadGate.set(ch, ReadGate.Reason.MEMORY, true);
        ReadGate.set(ch, ReadGate.Reason.UNWRITABLE, true);
        assertThat(ch.config().isAutoRead()).isFalse();
        ReadGate.set(ch, ReadGate.Reason.BACKLOG, false); // a resume by a handler not pausing
        ReadGate.set(ch, ReadGate.Reason.UNWRITABLE, false);
        assertThat(ch.config().isAutoRead()).as("memory still holds it").isFalse();
        assertThat(ReadGate.isPaused(ch, ReadGate.Reason.MEMORY)).isTrue();
        ReadGate.set(ch, ReadGate.Reason.MEMORY, false);
        assertThat(ch.config().isAutoRead()).isTrue();
        ch.finishAndReleaseAll();
    }
}
