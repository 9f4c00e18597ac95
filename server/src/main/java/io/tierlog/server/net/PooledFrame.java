package io.tierlog.server.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;

/**
 * One request frame holding a reservation of the {@link RequestMemoryPool}: a composite of exactly
 * one component (the retained slice of the decoder's cumulation), so {@code nioBuffer()} is still
 * the slice's own memory (no copy), whose deallocation, when the last reference (including slices
 * derived from it) is released, gives the reservation back. Reference counted like any {@link
 * ByteBuf}; not thread-safe for concurrent reads of its indexes, like any {@link ByteBuf}.
 */
final class PooledFrame extends CompositeByteBuf {
    private final RequestMemoryPool pool;
    private final long reserved;

    PooledFrame(ByteBuf slice, RequestMemoryPool pool, long reserved) {
        super(slice.alloc(), slice.isDirect(), 1, slice);
        this.pool = pool;
        this.reserved = reserved;
    }

    @Override
    protected void deallocate() {
        try {
            super.deallocate();
        } finally {
            pool.release(reserved);
        }
    }
}
