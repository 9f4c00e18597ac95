package io.tierlog.server.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultFileRegion;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * A Kafka {@link Writable} that serialises a message into Netty outbound parts. Ordinary fields go
 * into pooled {@link ByteBuf}s; at each {@link #writeRecords(BaseRecords)} of {@link
 * ZeroCopyRecords} the current buffer is closed off and a {@link DefaultFileRegion} over the
 * records' file range is emitted, so the record bytes go from page cache to socket with {@code
 * sendfile} on epoll (or {@code FileChannel.transferTo} on NIO). In-memory records are copied into
 * the buffer.
 *
 * <p>Single use; not thread-safe. {@link #parts()} hands ownership of the parts to the caller, who
 * must write or release them.
 */
final class NettyWritable implements Writable {
    private final ByteBufAllocator alloc;
    private final List<Object> parts = new ArrayList<>(4);
    private ByteBuf buf;

    public NettyWritable(ByteBufAllocator alloc, int initialCapacity) {
        this.alloc = alloc;
        this.buf = alloc.buffer(Math.max(64, initialCapacity));
    }

    /** The serialised parts, in order: {@link ByteBuf}s and {@link DefaultFileRegion}s. */
    public List<Object> parts() {
        if (buf != null) {
            if (buf.isReadable() || parts.isEmpty()) {
                parts.add(buf);
            } else {
                buf.release();
            }
            buf = null;
        }
        return parts;
    }

    /** Releases everything written so far (on a serialisation failure). */
    public void discard() {
        for (Object p : parts()) {
            io.netty.util.ReferenceCountUtil.release(p);
        }
        parts.clear();
    }

    @Override
    public void writeRecords(BaseRecords records) {
        if (records instanceof ZeroCopyRecords z) {
            if (z.sizeInBytes() == 0) {
                return;
            }
            if (buf.isReadable()) {
                parts.add(buf);
                buf = alloc.buffer(64);
            }
            ZeroCopyRecords.Pin pin;
            try {
                pin = z.pin();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            parts.add(new SharedFileRegion(pin, z.position(), z.sizeInBytes()));
        } else if (records instanceof MemoryRecords m) {
            buf.writeBytes(m.buffer().duplicate());
        } else if (records != null) {
            throw new IllegalArgumentException(
                    "cannot write records of type " + records.getClass().getName());
        }
    }

    @Override
    public void writeByte(byte val) {
        buf.writeByte(val);
    }

    @Override
    public void writeShort(short val) {
        buf.writeShort(val);
    }

    @Override
    public void writeInt(int val) {
        buf.writeInt(val);
    }

    @Override
    public void writeLong(long val) {
        buf.writeLong(val);
    }

    @Override
    public void writeDouble(double val) {
        buf.writeDouble(val);
    }

    @Override
    public void writeByteArray(byte[] arr) {
        buf.writeBytes(arr);
    }

    @Override
    public void writeUnsignedVarint(int i) {
        while ((i & 0xffffff80) != 0) {
            buf.writeByte((i & 0x7f) | 0x80);
            i >>>= 7;
        }
        buf.writeByte(i);
    }

    @Override
    public void writeByteBuffer(ByteBuffer src) {
        buf.writeBytes(src.duplicate());
    }

    @Override
    public void writeVarint(int i) {
        writeUnsignedVarint((i << 1) ^ (i >> 31));
    }

    @Override
    public void writeVarlong(long v) {
        long x = (v << 1) ^ (v >> 63);
        while ((x & 0xffffffffffffff80L) != 0L) {
            buf.writeByte(((int) x & 0x7f) | 0x80);
            x >>>= 7;
        }
        buf.writeByte((int) x);
    }
}
