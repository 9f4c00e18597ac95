package io.tierlog.cold;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Memory for the fetched pages of one columnar read: buffers are carved out of large slabs and all
 * released at once when the read ends ({@link #reset}), so that reading a chunk allocates no page
 * arrays (they were about as many bytes as the data served, all garbage after the read). A read's
 * pages are consumed (copied into the rebuilt batches) before it returns; nothing may keep a buffer
 * from the arena past {@link #reset} (dictionaries copy their page).
 *
 * <p>One per thread ({@link #forThisThread}); not thread-safe.
 */
final class ReadArena {
    private static final int SLAB = 4 << 20;

    /** Slabs kept between reads, at most: more are dropped on reset. */
    private static final long RETAINED = 16L << 20;

    private static final ThreadLocal<ReadArena> ARENAS = ThreadLocal.withInitial(ReadArena::new);

    private final List<ByteBuffer> slabs = new ArrayList<>();
    private int current;

    static ReadArena forThisThread() {
        return ARENAS.get();
    }

    /** A heap buffer of exactly {@code n} bytes (position 0, limit n), valid until reset. */
    ByteBuffer allocate(int n) {
        if (n > SLAB) {
            return ByteBuffer.allocate(n); // larger than a slab: not pooled
        }
        while (current < slabs.size() && slabs.get(current).remaining() < n) {
            current++;
        }
        if (current == slabs.size()) {
            slabs.add(ByteBuffer.allocate(SLAB));
        }
        ByteBuffer slab = slabs.get(current);
        ByteBuffer b = slab.slice();
        b.limit(n);
        slab.position(slab.position() + n);
        return b.slice();
    }

    /** Releases every buffer handed out since the last reset. */
    void reset() {
        long kept = 0;
        for (int i = 0; i < slabs.size(); i++) {
            if (kept + SLAB > RETAINED) {
                slabs.subList(i, slabs.size()).clear();
                break;
            }
            slabs.get(i).clear();
            kept += SLAB;
        }
        current = 0;
    }
}
