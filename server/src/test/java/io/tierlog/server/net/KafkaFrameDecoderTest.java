package io.tierlog.server.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The frame decoder's bounds: the request memory pool (reservation at the size prefix, release with
 * the frame, backpressure instead of failure) and the receive deadline (a trickled partial frame
 * closes the connection). Time is the embedded loop's, advanced by hand.
 */
class KafkaFrameDecoderTest {
    private static final Duration DEADLINE = Duration.ofSeconds(5);

    private static EmbeddedChannel channel(RequestMemoryPool pool) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.freezeTime();
        ch.pipeline().addLast(new KafkaFrameDecoder(1 << 20, pool, DEADLINE));
        return ch;
    }

    private static ByteBuf frame(int size, byte fill) {
        ByteBuf b = Unpooled.buffer(4 + size).writeInt(size);
        for (int i = 0; i < size; i++) {
            b.writeByte(fill);
        }
        return b;
    }

    @Test
    void aFrameReservesItsSizeUntilReleased() {
        RequestMemoryPool pool = new RequestMemoryPool(1000);
        EmbeddedChannel ch = channel(pool);
        ch.writeInbound(frame(300, (byte) 1));
        ByteBuf f = ch.readInbound();
        assertThat(f.readableBytes()).isEqualTo(300);
        assertThat(f.getByte(299)).isEqualTo((byte) 1);
        assertThat(f.nioBufferCount()).as("no copy: one buffer").isEqualTo(1);
        assertThat(pool.reservedBytes()).isEqualTo(300);
        ByteBuf derived = f.retainedSlice(10, 20); // a produce batch kept by a handler
        f.release();
        assertThat(pool.reservedBytes()).as("a derived slice still holds it").isEqualTo(300);
        derived.release();
        assertThat(pool.reservedBytes()).isZero();
        ch.finishAndReleaseAll();
    }

    @Test
    void aFrameThatDoesNotFitPausesReadingAndIsDecodedOnceMemoryIsReleased() {
        RequestMemoryPool pool = new RequestMemoryPool(1000);
        EmbeddedChannel a = channel(pool);
        EmbeddedChannel b = channel(pool);
        a.writeInbound(frame(700, (byte) 1));
        ByteBuf held = a.readInbound();
        assertThat(pool.reservedBytes()).isEqualTo(700);

        b.writeInbound(frame(500, (byte) 2));
        assertThat((Object) b.readInbound()).as("waits, not failed").isNull();
        assertThat(b.isOpen()).isTrue();
        assertThat(b.config().isAutoRead()).as("backpressure: not read").isFalse();
        assertThat(pool.waitingConnections()).isEqualTo(1);

        held.release();
        b.runPendingTasks();
        ByteBuf got = b.readInbound();
        assertThat(got).as("decoded once memory was released").isNotNull();
        assertThat(got.readableBytes()).isEqualTo(500);
        assertThat(got.getByte(0)).isEqualTo((byte) 2);
        assertThat(b.config().isAutoRead()).isTrue();
        assertThat(pool.reservedBytes()).isEqualTo(500);
        got.release();
        assertThat(pool.reservedBytes()).isZero();
        a.finishAndReleaseAll();
        b.finishAndReleaseAll();
    }

    @Test
    void aFrameLargerThanThePoolIsAdmittedWhenNothingElseHoldsMemory() {
        RequestMemoryPool pool = new RequestMemoryPool(100);
        EmbeddedChannel ch = channel(pool);
        ch.writeInbound(frame(5000, (byte) 3));
        ByteBuf f = ch.readInbound();
        assertThat(f.readableBytes()).isEqualTo(5000);
        f.release();
        assertThat(pool.reservedBytes()).isZero();
        ch.finishAndReleaseAll();
    }

    @Test
    void aTrickledFrameClosesTheConnectionAtTheReceiveDeadline() {
        RequestMemoryPool pool = new RequestMemoryPool(1 << 20);
        EmbeddedChannel ch = channel(pool);
        ch.writeInbound(Unpooled.buffer().writeInt(100_000).writeByte(0));
        assertThat(pool.reservedBytes()).isEqualTo(100_000);
        for (int i = 0; i < 4; i++) {
            ch.advanceTimeBy(1, TimeUnit.SECONDS);
            ch.runScheduledPendingTasks();
            ch.writeInbound(Unpooled.buffer().writeByte(0)); // each byte would reset idle time
        }
        assertThat(ch.isOpen()).isTrue();
        ch.advanceTimeBy(1, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).as("closed %s after the frame began", DEADLINE).isFalse();
        ch.finishAndReleaseAll();
        assertThat(pool.reservedBytes()).as("its reservation given back").isZero();
    }

    @Test
    void theDeadlineRestartsWithEachFrame() {
        RequestMemoryPool pool = new RequestMemoryPool(1 << 20);
        EmbeddedChannel ch = channel(pool);
        for (int i = 0; i < 4; i++) {
            // A whole frame, then the first bytes of the next, every 3 s: never 5 s on one frame.
            ByteBuf b = Unpooled.buffer();
            if (i > 0) {
                b.writeBytes(new byte[8]); // the rest of the previous frame
            }
            b.writeInt(10).writeBytes(new byte[2]);
            ch.writeInbound(b);
            ch.advanceTimeBy(3, TimeUnit.SECONDS);
            ch.runScheduledPendingTasks();
            assertThat(ch.isOpen()).isTrue();
        }
        ch.finishAndReleaseAll();
    }

    @Test
    void aConnectionClosedWhileWaitingForMemoryLeavesNoWaiterAndNoReservation() {
        RequestMemoryPool pool = new RequestMemoryPool(1000);
        EmbeddedChannel a = channel(pool);
        EmbeddedChannel b = channel(pool);
        a.writeInbound(Unpooled.buffer().writeInt(900).writeByte(1)); // partial, reserved
        b.writeInbound(Unpooled.buffer().writeInt(900).writeByte(1)); // waits
        assertThat(pool.waitingConnections()).isEqualTo(1);
        b.close();
        assertThat(pool.waitingConnections()).isZero();
        a.close();
        assertThat(pool.reservedBytes()).isZero();
        a.finishAndReleaseAll();
        b.finishAndReleaseAll();
    }
}
