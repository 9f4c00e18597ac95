package io.tierlog.compactor;

import io.tierlog.hot.AbortedTxn;
import io.tierlog.hot.OngoingTxn;
import io.tierlog.hot.SegmentInfo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The transactions of a partition of a read-only log dir, from its batch headers alone (a control
 * batch, one small record, is read whole for its marker type): a transactional data batch opens its
 * producer's transaction, that producer's next marker closes it (an abort marker makes it an {@link
 * AbortedTxn}). Every segment is scanned, the active one included (a marker may lie there). The
 * last stable offset is the first offset of the oldest transaction still open at the end, else the
 * end of the log: conservative, since an open transaction seen here may have finished in data not
 * yet written or readable. Kafka's own {@code .txnindex} and producer snapshots are not needed.
 *
 * <p>Header layout read (Kafka {@code DefaultRecordBatch}): base offset int64 @0, batch length
 * int32 @8, attributes int16 @21 (bit 4 transactional, 5 control), last offset delta int32 @23,
 * producer id int64 @43; a batch spans {@code 12 + length} bytes. A torn or impossible header ends
 * the segment's scan.
 *
 * <p>A result is immutable once returned, so thread-safe.
 */
final class TxnHeaderScan {
    private static final int HEADER = 61;
    private static final int ATTRIBUTES = 21;
    private static final int LAST_OFFSET_DELTA = 23;
    private static final int PRODUCER_ID = 43;
    private static final int TRANSACTIONAL = 0x10;
    private static final int CONTROL = 0x20;

    private final long lastStableOffset;
    private final Optional<OngoingTxn> oldestOpen;
    private final List<AbortedTxn> aborted;

    /** The state after the leading closed segments, from which a later scan resumes. */
    private Progress afterClosed;

    private TxnHeaderScan(
            long lastStableOffset, Optional<OngoingTxn> oldestOpen, List<AbortedTxn> aborted) {
        this.lastStableOffset = lastStableOffset;
        this.oldestOpen = oldestOpen;
        this.aborted = aborted;
    }

    long lastStableOffset() {
        return lastStableOffset;
    }

    Optional<OngoingTxn> oldestOpen() {
        return oldestOpen;
    }

    /** Aborted transactions holding any offset of {@code [from, upTo)}, in marker order. */
    List<AbortedTxn> aborted(long from, long upTo) {
        List<AbortedTxn> out = new ArrayList<>();
        for (AbortedTxn a : aborted) {
            if (a.lastOffset() >= from && a.firstOffset() < upTo) {
                out.add(a);
            }
        }
        return out;
    }

    /** Scans {@code segments} (oldest first) of one partition. */
    static TxnHeaderScan of(List<SegmentInfo> segments) throws IOException {
        return of(segments, null);
    }

    /**
     * As {@link #of(List)}, resuming after the closed segments {@code previous} scanned when they
     * are still the first of {@code segments}, unchanged (a log dir's closed segments change only
     * by retention or a cleaner, which both change the list): only the rest is read again.
     */
    static TxnHeaderScan of(List<SegmentInfo> segments, TxnHeaderScan previous) throws IOException {
        Progress p = null;
        if (previous != null && previous.afterClosed != null) {
            List<SegmentInfo> done = previous.afterClosed.segments;
            if (done.size() <= segments.size() && segments.subList(0, done.size()).equals(done)) {
                p = previous.afterClosed.copy();
            }
        }
        if (p == null) {
            p = new Progress(segments.isEmpty() ? 0 : segments.get(0).baseOffset());
        }
        Progress afterClosed = p.copy();
        boolean closedPrefix = true;
        ByteBuffer header = ByteBuffer.allocate(HEADER);
        for (int i = p.segments.size(); i < segments.size(); i++) {
            SegmentInfo s = segments.get(i);
            scanSegment(s, p, header);
            p.segments.add(s);
            closedPrefix &= s.closed();
            if (closedPrefix) {
                afterClosed = p.copy();
            }
        }
        Progress state = p;
        Optional<OngoingTxn> oldest =
                state.open.entrySet().stream()
                        .findFirst()
                        .map(
                                e ->
                                        new OngoingTxn(
                                                e.getKey(),
                                                state.epochs.get(e.getKey()),
                                                e.getValue(),
                                                -1));
        long lso = oldest.map(OngoingTxn::firstOffset).orElse(p.end);
        TxnHeaderScan out = new TxnHeaderScan(lso, oldest, List.copyOf(p.aborted));
        out.afterClosed = afterClosed;
        return out;
    }

    /** The scan's state after some segments. Not thread-safe; copied before being shared. */
    private static final class Progress {
        final List<SegmentInfo> segments = new ArrayList<>();
        // pid -> first offset of its open transaction, oldest first
        final Map<Long, Long> open = new LinkedHashMap<>();
        final Map<Long, Short> epochs = new HashMap<>();
        final List<AbortedTxn> aborted = new ArrayList<>();
        long end;

        Progress(long end) {
            this.end = end;
        }

        Progress copy() {
            Progress c = new Progress(end);
            c.segments.addAll(segments);
            c.open.putAll(open);
            c.epochs.putAll(epochs);
            c.aborted.addAll(aborted);
            return c;
        }
    }

    private static void scanSegment(SegmentInfo s, Progress p, ByteBuffer header)
            throws IOException {
        FileChannel ch;
        try {
            ch = FileChannel.open(s.logFile(), StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            return; // deleted by the dir's writer meanwhile (retention)
        }
        try (ch) {
            long size = ch.size();
            long pos = 0;
            while (size - pos >= HEADER) {
                header.clear();
                readFully(ch, header, pos);
                long base = header.getLong(0);
                int length = header.getInt(8);
                if (length < HEADER - 12 || pos + 12 + length > size) {
                    break;
                }
                short attributes = header.getShort(ATTRIBUTES);
                long last = base + header.getInt(LAST_OFFSET_DELTA);
                long pid = header.getLong(PRODUCER_ID);
                p.end = Math.max(p.end, last + 1);
                if ((attributes & TRANSACTIONAL) != 0) {
                    if ((attributes & CONTROL) == 0) {
                        p.open.putIfAbsent(pid, base);
                        p.epochs.put(pid, header.getShort(PRODUCER_ID + 8));
                    } else {
                        Long first = p.open.remove(pid);
                        if (first != null && isAbort(ch, pos, 12 + length)) {
                            long lso =
                                    p.open.isEmpty() ? base + 1 : p.open.values().iterator().next();
                            p.aborted.add(new AbortedTxn(pid, first, base, lso));
                        }
                    }
                }
                pos += 12 + length;
            }
        }
    }

    private static boolean isAbort(FileChannel ch, long pos, int size) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(size);
        readFully(ch, buf, pos);
        buf.flip();
        RecordBatch b = MemoryRecords.readableRecords(buf).firstBatch();
        for (Record r : b) {
            return r.hasKey() && ControlRecordType.parse(r.key()) == ControlRecordType.ABORT;
        }
        return false;
    }

    private static void readFully(FileChannel ch, ByteBuffer buf, long at) throws IOException {
        long p = at;
        while (buf.hasRemaining()) {
            int n = ch.read(buf, p);
            if (n < 0) {
                throw new java.io.EOFException("segment ended at " + p);
            }
            p += n;
        }
    }
}
