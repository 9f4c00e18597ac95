package io.tierlog.server.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.CorruptedFrameException;
import java.util.List;

/**
 * Splits the inbound byte stream into Kafka request frames.
 *
 * <p>Wire format of one frame: {@code int32 size} (big endian, bytes that follow), then {@code
 * size} bytes of request header and body. A size below 0 or above {@code socket.request.max.bytes}
 * fails the channel before any buffer is sized after it, so a hostile prefix cannot make the server
 * allocate; the stream only ever holds bytes the peer actually sent. Emitted frames are retained
 * slices of the cumulation buffer: the request body (including produce record batches) is never
 * copied.
 *
 * <p>One instance per channel; not thread-safe (Netty calls it from the channel's event loop).
 */
public final class KafkaFrameDecoder extends ByteToMessageDecoder {
    private final int maxFrameBytes;

    public KafkaFrameDecoder(int maxFrameBytes) {
        this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
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
            if (in.readableBytes() < 4 + size) {
                return;
            }
            in.skipBytes(4);
            out.add(in.readRetainedSlice(size));
        }
    }
}
