package io.tierlog.server.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.CorruptedFrameException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits the inbound byte stream into Kafka request frames, within bounded memory and time.
 *
 * <p>Wire format of one frame: {@code int32 size} (big endian, bytes that follow), then {@code
 * size} bytes of request header and body. A size below 0 or above {@code socket.request.max.bytes}
 * fails the channel before any buffer is sized after it, so a hostile prefix cannot make the server
 * allocate; the stream only ever holds bytes the peer actually sent. Emitted frames are {@link
 * PooledFrame}s around retained slices of the cumulation buffer: the request body (including
 * produce record batches) is never copied.
 *
 * <p>Memory: when a size prefix arrives the frame reserves its size in the shared {@link
 * RequestMemoryPool} ({@code queued.max.request.bytes}); the reservation passes to the emitted
 * frame and returns to the pool when the frame is released. While the pool cannot hold the frame,
 * this connection is not read ({@link ReadGate.Reason#MEMORY}): its bytes wait in the kernel, and
 * the peer's TCP window closes, until a release wakes it.
 *
 * <p>Time: a frame must arrive whole within {@code request.receive.timeout.ms} of its first byte
 * (waiting for memory included); otherwise the connection is closed with a WARN line. Each byte
 * resets the idle timer, so without this a peer trickling one byte a second would hold its partial
 * frame, and its reservation, for ever. One timer per connection, armed only while a partial frame
 * is buffered (most frames arrive in one read and never arm it); time is the event loop's {@code
 * ticker()}, so tests drive it.
 *
 * <p>One instance per channel; not thread-safe (Netty calls it from the channel's event loop;
 * {@link #memoryAvailable} hops there).
 */
final class KafkaFrameDecoder extends ByteToMessageDecoder implements RequestMemoryPool.Waiter {
    private static final Logger log = LoggerFactory.getLogger(KafkaFrameDecoder.class);

    private final int maxFrameBytes;
    private final RequestMemoryPool pool;
    private final long receiveTimeoutNanos;

    private ChannelHandlerContext ctx;

    /** Size reserved in the pool for the frame at the head of the cumulation, or -1. */
    private long reservedFor = -1;

    /** Reading is paused until the pool can hold the frame at the head. */
    private boolean waitingForMemory;

    /** When the first byte of the buffered partial frame arrived (nanoTime), or -1. */
    private long frameStartNanos = -1;

    private boolean timerArmed;
    private boolean removed;

    /** A decoder without limits beyond {@code maxFrameBytes} (tests, tools). */
    public KafkaFrameDecoder(int maxFrameBytes) {
        this(maxFrameBytes, new RequestMemoryPool(Long.MAX_VALUE), Duration.ofDays(365));
    }

    public KafkaFrameDecoder(int maxFrameBytes, RequestMemoryPool pool, Duration receiveTimeout) {
        this.maxFrameBytes = maxFrameBytes;
        this.pool = pool;
        this.receiveTimeoutNanos = receiveTimeout.toNanos();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        boolean emitted = false;
        while (in.readableBytes() >= 4) {
            int size = in.getInt(in.readerIndex());
            if (size < 0 || size > maxFrameBytes) {
                in.skipBytes(in.readableBytes());
                throw new CorruptedFrameException(
                        "request size "
                                + size
                                + " outside [0, socket.request.max.bytes="
                                + maxFrameBytes
                                + "]");
            }
            if (reservedFor < 0) {
                if (!pool.tryReserve(size, this)) {
                    pauseForMemory(ctx);
                    break;
                }
                reservedFor = size;
                if (waitingForMemory) {
                    waitingForMemory = false;
                    ReadGate.set(ctx.channel(), ReadGate.Reason.MEMORY, false);
                }
            }
            if (in.readableBytes() < 4 + size) {
                break;
            }
            in.skipBytes(4);
            out.add(new PooledFrame(in.readRetainedSlice(size), pool, size));
            reservedFor = -1; // the frame holds it now
            emitted = true;
        }
        if (!in.isReadable()) {
            frameStartNanos = -1;
        } else if (emitted || frameStartNanos < 0) {
            // What remains is the start of a new frame.
            frameStartNanos = ctx.executor().ticker().nanoTime();
            armTimer(ctx, receiveTimeoutNanos);
        }
    }

    private void pauseForMemory(ChannelHandlerContext ctx) {
        if (!waitingForMemory) {
            waitingForMemory = true;
            ReadGate.set(ctx.channel(), ReadGate.Reason.MEMORY, true);
            log.debug(
                    "{}: request memory full ({} of {} bytes reserved); pausing reads",
                    ctx.channel().remoteAddress(),
                    pool.reservedBytes(),
                    pool.capacity());
        }
    }

    @Override
    public void memoryAvailable() {
        ChannelHandlerContext c = ctx;
        if (c == null) {
            return;
        }
        try {
            c.executor().execute(this::retryAfterRelease);
        } catch (RejectedExecutionException e) {
            // The event loop is shutting down; the connection goes with it.
        }
    }

    /** Decodes again what is buffered, now that memory may fit the waiting frame. */
    private void retryAfterRelease() {
        if (!waitingForMemory || removed || !ctx.channel().isActive()) {
            return;
        }
        try {
            channelRead(ctx, Unpooled.EMPTY_BUFFER);
            channelReadComplete(ctx);
        } catch (Exception e) {
            ctx.fireExceptionCaught(e);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (waitingForMemory) {
            // ByteToMessageDecoder would call read() when it produced nothing with autoRead off:
            // exactly what the pause must prevent.
            discardSomeReadBytes();
            ctx.fireChannelReadComplete();
            return;
        }
        super.channelReadComplete(ctx);
    }

    private void armTimer(ChannelHandlerContext ctx, long delayNanos) {
        if (timerArmed) {
            return;
        }
        timerArmed = true;
        ctx.executor().schedule(this::checkDeadline, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void checkDeadline() {
        timerArmed = false;
        if (removed || frameStartNanos < 0 || !ctx.channel().isActive()) {
            return;
        }
        long age = ctx.executor().ticker().nanoTime() - frameStartNanos;
        if (age < receiveTimeoutNanos) {
            armTimer(ctx, receiveTimeoutNanos - age);
            return;
        }
        ByteBuf buffered = internalBuffer();
        int have = buffered.readableBytes();
        String size =
                have >= 4 ? Integer.toString(buffered.getInt(buffered.readerIndex())) : "unknown";
        log.warn(
                "closing connection {}: a request of {} bytes was not received within"
                        + " request.receive.timeout.ms={} ({} bytes arrived{})",
                ctx.channel().remoteAddress(),
                size,
                TimeUnit.NANOSECONDS.toMillis(receiveTimeoutNanos),
                have,
                waitingForMemory ? ", waiting for queued.max.request.bytes" : "");
        ctx.close();
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        removed = true;
        pool.cancel(this);
        if (reservedFor >= 0) {
            pool.release(reservedFor);
            reservedFor = -1;
        }
    }
}
