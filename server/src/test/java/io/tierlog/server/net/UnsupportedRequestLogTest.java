package io.tierlog.server.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The log of unsupported requests: once per client id, API and version, with bounded memory. */
class UnsupportedRequestLogTest {
    @Test
    void aClientIsLoggedOncePerApiAndVersion() {
        UnsupportedRequestLog log = new UnsupportedRequestLog();
        assertThat(log.record("app-1", "PRODUCE", (short) 13, "3-11", "peer")).isTrue();
        assertThat(log.record("app-1", "PRODUCE", (short) 13, "3-11", "peer"))
                .as("the same request again")
                .isFalse();
        assertThat(log.record("app-1", "PRODUCE", (short) 12, "3-11", "peer"))
                .as("another version")
                .isTrue();
        assertThat(log.record("app-1", "WRITE_TXN_MARKERS", (short) 1, null, "peer")).isTrue();
        assertThat(log.record("app-2", "PRODUCE", (short) 13, "3-11", "peer"))
                .as("another client")
                .isTrue();
        assertThat(log.record(null, "PRODUCE", (short) 13, "3-11", "peer")).isTrue();
        assertThat(log.record(null, "PRODUCE", (short) 13, "3-11", "peer")).isFalse();
    }

    @Test
    void rememberedClientsAreBoundedAndTheLeastRecentlySeenForgottenFirst() {
        UnsupportedRequestLog log = new UnsupportedRequestLog(3);
        for (int i = 0; i < 1000; i++) {
            log.record("client-" + i, "PRODUCE", (short) 13, "3-11", "peer");
        }
        assertThat(log.size()).isEqualTo(3);
        assertThat(log.record("client-999", "PRODUCE", (short) 13, "3-11", "peer"))
                .as("recent: still remembered")
                .isFalse();
        assertThat(log.record("client-0", "PRODUCE", (short) 13, "3-11", "peer"))
                .as("forgotten: logged again")
                .isTrue();
    }

    @Test
    void theClientIdIsReadFromTheRawHeaderOrNullWhenMalformed() {
        byte[] id = "my-app".getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(10 + id.length + 4);
        b.putShort((short) 0).putShort((short) 99).putInt(7).putShort((short) id.length).put(id);
        b.putInt(0).flip();
        assertThat(KafkaChannelHandler.clientId(b)).isEqualTo("my-app");
        ByteBuffer nullId = ByteBuffer.allocate(10);
        nullId.putShort((short) 0).putShort((short) 1).putInt(7).putShort((short) -1).flip();
        assertThat(KafkaChannelHandler.clientId(nullId)).isNull();
        ByteBuffer truncated = ByteBuffer.allocate(11);
        truncated
                .putShort((short) 0)
                .putShort((short) 1)
                .putInt(7)
                .putShort((short) 50)
                .put((byte) 1);
        assertThat(KafkaChannelHandler.clientId(truncated.flip())).isNull();
    }
}
