package io.tierlog.compactor;

import io.tierlog.hot.AbortedTxn;
import io.tierlog.hot.FileSlice;
import io.tierlog.hot.OngoingTxn;
import io.tierlog.hot.ReadOnlyLogDir;
import io.tierlog.hot.SegmentInfo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;

/**
 * Segments of any directory of partition folders ({@code <topic>-<partition>}, Kafka's layout: an
 * Apache Kafka broker's log dir, or a tierlog data dir another process owns), read through the hot
 * tier's {@link ReadOnlyLogDir}: nothing in the directory is ever written, and only batches whose
 * CRC verified are offloaded. Partitions and segments are re-listed on every call, so new
 * partitions and rolled segments show up.
 *
 * <p>Transactions come from a {@link TxnHeaderScan} of the partition's segments (cached until its
 * segment list changes, then resumed after the closed segments already scanned): a Kafka dir's
 * {@code .txnindex} files are not needed.
 *
 * <p>Thread-safe.
 */
public final class LogDirSource implements SegmentSource {
    /**
     * Marker file a Kafka broker (and tierlog's log manager) writes into its log dir on a clean
     * shutdown and deletes on startup.
     */
    public static final String CLEAN_SHUTDOWN_MARKER = ".kafka_cleanshutdown";

    /** Whether the last (active) segment of each partition may be offloaded. */
    public enum ActiveSegments {
        /** Never: only rolled segments (the directory's writer may still append). */
        EXCLUDE,
        /** Always: the writer is known to be stopped. */
        INCLUDE,
        /**
         * When the directory holds the clean-shutdown marker: its writer stopped cleanly, so the
         * last segments are final too. Should the writer start again meanwhile, nothing breaks:
         * only CRC-valid whole batches are read, and the next pass resumes from the cold high
         * watermark.
         */
        AUTO
    }

    private final Path logDir;
    private final ReadOnlyLogDir dir;
    private final ActiveSegments activeSegments;

    /** The last scan of each partition's transactions, valid while its segments stay the same. */
    private final ConcurrentHashMap<TopicPartition, Scanned> scans = new ConcurrentHashMap<>();

    private record Scanned(List<SegmentInfo> segments, TxnHeaderScan scan) {}

    private LogDirSource(Path logDir, ReadOnlyLogDir dir, ActiveSegments activeSegments) {
        this.logDir = logDir;
        this.dir = dir;
        this.activeSegments = activeSegments;
    }

    /** A source over {@code logDir} (which must exist) that never offloads active segments. */
    public static LogDirSource open(Path logDir) throws IOException {
        return open(logDir, ActiveSegments.EXCLUDE);
    }

    /** A source over {@code logDir} (which must exist). */
    public static LogDirSource open(Path logDir, ActiveSegments activeSegments) throws IOException {
        return new LogDirSource(logDir, ReadOnlyLogDir.open(logDir), activeSegments);
    }

    /** True if the active segments are offloaded now (see {@link ActiveSegments}). */
    public boolean includesActiveSegments() {
        return switch (activeSegments) {
            case INCLUDE -> true;
            case EXCLUDE -> false;
            case AUTO -> Files.exists(logDir.resolve(CLEAN_SHUTDOWN_MARKER));
        };
    }

    public Path logDir() {
        return logDir;
    }

    @Override
    public List<TopicPartition> partitions() throws IOException {
        try {
            return dir.partitions();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    @Override
    public List<SegmentInfo> segments(TopicPartition tp) throws IOException {
        List<SegmentInfo> segments;
        try {
            segments = dir.segments(tp);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        if (segments.isEmpty() || !includesActiveSegments()) {
            return segments;
        }
        List<SegmentInfo> out = new ArrayList<>(segments);
        SegmentInfo last = out.get(out.size() - 1);
        if (!last.closed()) {
            out.set(
                    out.size() - 1,
                    new SegmentInfo(
                            last.tp(),
                            last.baseOffset(),
                            last.nextOffset(),
                            last.sizeInBytes(),
                            last.maxTimestamp(),
                            true,
                            last.logFile()));
        }
        return out;
    }

    @Override
    public BatchStream batches(SegmentInfo segment) throws IOException {
        FileSlice slice = dir.readSegment(segment);
        if (slice.isEmpty()) {
            return BatchStream.empty();
        }
        // The channel belongs to the ReadOnlyLogDir (closed with it), not to the stream; the pin
        // keeps its bound on open files from closing it while the stream reads.
        FileSlice.Pin pin = slice.pin();
        return new BatchStream(pin.channel(), slice.position(), slice.sizeInBytes(), pin::close);
    }

    @Override
    public long lastStableOffset(TopicPartition tp) throws IOException {
        return scan(tp).lastStableOffset();
    }

    @Override
    public List<AbortedTxn> abortedTransactions(TopicPartition tp, long from, long upTo)
            throws IOException {
        return scan(tp).aborted(from, upTo);
    }

    @Override
    public Optional<OngoingTxn> oldestOpenTransaction(TopicPartition tp) throws IOException {
        return scan(tp).oldestOpen();
    }

    private TxnHeaderScan scan(TopicPartition tp) throws IOException {
        List<SegmentInfo> now;
        try {
            now = dir.segments(tp);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        Scanned last = scans.get(tp);
        if (last != null && last.segments().equals(now)) {
            return last.scan();
        }
        TxnHeaderScan fresh = TxnHeaderScan.of(now, last == null ? null : last.scan());
        scans.put(tp, new Scanned(now, fresh));
        return fresh;
    }

    @Override
    public String describe() {
        return "log dir " + logDir;
    }

    @Override
    public void close() throws IOException {
        dir.close();
    }
}
