package io.tierlog.server.net;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Bounds the memory of requests being received, all connections together ({@code
 * queued.max.request.bytes}), like Kafka's {@code SimpleMemoryPool}: a request reserves its whole
 * size when its size prefix arrives and gives it back when its buffer is released (after it was
 * processed). A reservation that does not fit is refused and its waiter registered; every release
 * wakes the waiters, which try again (a connection waits by not being read: backpressure, not an
 * error). A request larger than the whole pool is admitted when nothing else is reserved, so one
 * request of {@code socket.request.max.bytes} always gets through.
 *
 * <p>Thread-safe: reservations come from every event loop; waiters are woken on the releasing
 * thread and must hop to their own loop.
 */
public final class RequestMemoryPool {
    /** Told that memory was released; called on the releasing thread, must not block. */
    interface Waiter {
        void memoryAvailable();
    }

    private final long capacity;
    private long reserved;
    private final Set<Waiter> waiters = new LinkedHashSet<>();

    public RequestMemoryPool(long capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.capacity = capacity;
    }

    /**
     * Reserves {@code bytes} if they fit (or nothing is reserved); otherwise registers {@code
     * waiter} to be told when memory is released and returns false. Atomic: no release can slip
     * between the refusal and the registration.
     */
    synchronized boolean tryReserve(long bytes, Waiter waiter) {
        if (reserved == 0 || reserved + bytes <= capacity) {
            reserved += bytes;
            waiters.remove(waiter);
            return true;
        }
        waiters.add(waiter);
        return false;
    }

    /** Gives back a reservation and wakes every waiter. */
    void release(long bytes) {
        List<Waiter> wake;
        synchronized (this) {
            reserved -= bytes;
            if (reserved < 0) {
                throw new IllegalStateException("released more than reserved: " + reserved);
            }
            if (waiters.isEmpty()) {
                return;
            }
            wake = new ArrayList<>(waiters);
            waiters.clear();
        }
        for (Waiter w : wake) {
            w.memoryAvailable();
        }
    }

    /** Forgets a waiter (its connection closed). */
    synchronized void cancel(Waiter waiter) {
        waiters.remove(waiter);
    }

    /** Bytes reserved by requests being received or waiting to be processed. */
    public synchronized long reservedBytes() {
        return reserved;
    }

    /** Connections waiting for memory. */
    public synchronized int waitingConnections() {
        return waiters.size();
    }

    public long capacity() {
        return capacity;
    }
}
