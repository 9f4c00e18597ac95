package io.tierlog.server.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Serialises one response frame: {@code int32 size}, the response header ({@code int32
 * correlation_id}, plus tagged fields in header v1), then the body in the request's version. The
 * size is computed first by the generated {@code size()} (which counts file-backed records by their
 * length), so record bytes can follow as file regions. Stateless; thread-safe.
 */
final class ResponseEncoder {
    private static final int MAX_INITIAL_BUFFER = 16 * 1024;

    private ResponseEncoder() {}

    /** The outbound parts of the frame (buffers and file regions), owned by the caller. */
    public static List<Object> encode(
            ByteBufAllocator alloc,
            int correlationId,
            short headerVersion,
            ApiMessage body,
            short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        int headerSize = header.size(cache, headerVersion);
        int bodySize = body.size(cache, version);
        long frame = (long) headerSize + bodySize;
        if (frame > Integer.MAX_VALUE) {
            throw new IllegalStateException("response of " + frame + " bytes exceeds 2 GiB");
        }
        NettyWritable out = new NettyWritable(alloc, (int) Math.min(4 + frame, MAX_INITIAL_BUFFER));
        try {
            out.writeInt((int) frame);
            header.write(out, cache, headerVersion);
            body.write(out, cache, version);
            return out.parts();
        } catch (RuntimeException e) {
            out.discard();
            throw e;
        }
    }

    /** Total bytes of the encoded parts (tests and metrics). */
    public static long length(List<Object> parts) {
        long n = 0;
        for (Object p : parts) {
            if (p instanceof ByteBuf b) {
                n += b.readableBytes();
            } else if (p instanceof io.netty.channel.FileRegion r) {
                n += r.count();
            }
        }
        return n;
    }
}
