package io.tierlog.hot;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bound on segment files held open by one log dir ({@code log.open.files.max}): each {@link
 * SegmentFile} opens its channel on first use and registers here; once more than {@link #max()} are
 * open, the least recently used ones that nobody has pinned (no read, append or sendfile in
 * progress) are closed, down to 90% of the bound so that one pass serves many opens. A closed file
 * reopens transparently on its next use. Without this a log dir of 20,000 partitions holds 20,000
 * descriptors and a server under {@code ulimit -n 1024} can neither serve nor restart.
 *
 * <p>Pinned files are never closed, so the bound can be exceeded while more than {@code max} files
 * are in use at the same instant; it is restored as they are released.
 *
 * <p>Thread-safe: registration is lock-free; one eviction pass runs at a time.
 */
public final class OpenFiles {
    private static final Logger LOG = LoggerFactory.getLogger(OpenFiles.class);

    /** Descriptors left to everything else when deriving the default (sockets, jars, catalog). */
    static final int RESERVED_DESCRIPTORS = 256;

    /** Smallest bound: below it every fetch would reopen files. */
    public static final int MIN_MAX = 16;

    private final int max;
    private final Set<SegmentFile> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger count = new AtomicInteger();
    private final AtomicLong evictions = new AtomicLong();
    private final Object evictLock = new Object();

    private OpenFiles(int max) {
        this.max = max;
    }

    /**
     * A bound of {@code max} open files; 0 derives it from the process's descriptor limit ({@link
     * #defaultMax()}).
     */
    public static OpenFiles bounded(int max) {
        if (max != 0 && max < MIN_MAX) {
            throw new IllegalArgumentException("log.open.files.max must be 0 or >= " + MIN_MAX);
        }
        return new OpenFiles(max == 0 ? defaultMax() : max);
    }

    /**
     * Half of what the process may open after {@link #RESERVED_DESCRIPTORS} for everything else,
     * read from {@code com.sun.management.UnixOperatingSystemMXBean}; 4,096 where the limit cannot
     * be read.
     */
    public static int defaultMax() {
        long limit = maxFileDescriptors();
        if (limit <= 0) {
            return 4096;
        }
        long derived = (limit - RESERVED_DESCRIPTORS) / 2;
        return (int) Math.max(MIN_MAX, Math.min(Integer.MAX_VALUE, derived));
    }

    /** The process's descriptor limit, or -1 when the platform does not say. */
    static long maxFileDescriptors() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            return unix.getMaxFileDescriptorCount();
        }
        return -1;
    }

    /** Whether {@code e} (or a cause) is EMFILE/ENFILE: the process ran out of descriptors. */
    public static boolean isOutOfDescriptors(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && (m.contains("Too many open files") || m.contains("EMFILE"))) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code e} (or a cause) is a failed mmap ({@code vm.max_map_count} or memory). */
    public static boolean isOutOfMemoryMaps(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && m.contains("Map failed")) {
                return true;
            }
        }
        return false;
    }

    public int max() {
        return max;
    }

    /** Segment files open right now. */
    public int openCount() {
        return count.get();
    }

    /** Files closed so far to keep within the bound. */
    public long evictions() {
        return evictions.get();
    }

    /** Called by a file after it opened its channel; may close other, idle files. */
    void opened(SegmentFile f) {
        if (open.add(f)) {
            count.incrementAndGet();
        }
        if (count.get() > max) {
            evict(Math.max(MIN_MAX / 2, max - Math.max(1, max / 10)));
        }
    }

    /** Called by a file after it closed its channel (eviction or for good). */
    void closed(SegmentFile f) {
        if (open.remove(f)) {
            count.decrementAndGet();
        }
    }

    /**
     * Closes idle files, least recently used first, until at most {@code target} are open; used
     * also when an open failed for lack of descriptors ({@code target} 0 frees every idle one).
     */
    void evict(int target) {
        synchronized (evictLock) {
            if (count.get() <= target) {
                return;
            }
            List<SegmentFile> candidates = new ArrayList<>(open);
            candidates.sort(Comparator.comparingLong(SegmentFile::lastUse));
            int closedNow = 0;
            for (SegmentFile f : candidates) {
                if (count.get() <= target) {
                    break;
                }
                if (f.closeIfIdle()) {
                    closedNow++;
                }
            }
            evictions.addAndGet(closedNow);
            if (count.get() > max) {
                LOG.warn(
                        "{} segment files open, above log.open.files.max={}: every other one is"
                                + " in use",
                        count.get(),
                        max);
            } else if (LOG.isDebugEnabled()) {
                LOG.debug("Closed {} idle segment files; {} open", closedNow, count.get());
            }
        }
    }

    @Override
    public String toString() {
        return "OpenFiles{open=" + count.get() + ", max=" + max + "}";
    }
}
