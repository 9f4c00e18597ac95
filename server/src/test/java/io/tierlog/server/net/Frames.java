package io.tierlog.server.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.FileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/** Test helper: builds request frames and collects response bytes from an EmbeddedChannel. */
final class Frames {
    private Frames() {}

    static ByteBuf request(ApiKeys key, short version, int correlationId, ApiMessage body) {
        RequestHeaderData h =
                new RequestHeaderData()
                        .setRequestApiKey(key.id)
                        .setRequestApiVersion(version)
                        .setCorrelationId(correlationId)
                        .setClientId("test");
        short hv = key.requestHeaderVersion(version);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = h.size(cache, hv) + body.size(cache, version);
        ByteBuffer b = ByteBuffer.allocate(4 + size);
        b.putInt(size);
        ByteBufferAccessor w = new ByteBufferAccessor(b);
        h.write(w, cache, hv);
        body.write(w, cache, version);
        b.flip();
        return Unpooled.wrappedBuffer(b);
    }

    /** All outbound bytes so far, with file regions read through. */
    static ByteBuffer drainOutbound(EmbeddedChannel ch) throws IOException {
        ByteBuf all = Unpooled.buffer();
        Object o;
        while ((o = ch.readOutbound()) != null) {
            append(all, o);
        }
        ByteBuffer out = ByteBuffer.allocate(all.readableBytes());
        all.readBytes(out);
        out.flip();
        all.release();
        return out;
    }

    static void append(ByteBuf all, Object o) throws IOException {
        if (o instanceof ByteBuf b) {
            all.writeBytes(b);
            b.release();
        } else if (o instanceof FileRegion r) {
            WritableByteChannel sink =
                    new WritableByteChannel() {
                        @Override
                        public int write(ByteBuffer src) {
                            int n = src.remaining();
                            all.writeBytes(src);
                            return n;
                        }

                        @Override
                        public boolean isOpen() {
                            return true;
                        }

                        @Override
                        public void close() {}
                    };
            while (r.transferred() < r.count()) {
                r.transferTo(sink, r.transferred());
            }
            r.release();
        } else {
            throw new AssertionError("unexpected outbound " + o);
        }
    }
}
