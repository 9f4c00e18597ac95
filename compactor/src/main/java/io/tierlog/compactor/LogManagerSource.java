package io.tierlog.compactor;

import io.tierlog.hot.AbortedTxn;
import io.tierlog.hot.LogListener;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.OngoingTxn;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.SegmentInfo;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.TopicPartition;

/**
 * Closed segments of tierlog's own {@link LogManager}. A closed segment is immutable but for the
 * log cleaner of a compacted topic, which replaces segments only while it holds the partition's
 * exclusion ({@link #exclusive}, which the offloader takes), and the log manager's retention never
 * deletes one past the cold high watermark, so its {@code .log} file is read directly (read-only
 * channel). Segment rolls are observed through {@link LogListener}s, added to each partition the
 * first time it is seen.
 *
 * <p>Thread-safe.
 */
public final class LogManagerSource implements SegmentSource {
    private final LogManager logManager;
    private final Set<TopicPartition> observed = ConcurrentHashMap.newKeySet();
    private final List<Runnable> callbacks = new CopyOnWriteArrayList<>();
    private final LogListener listener =
            new LogListener() {
                @Override
                public void onSegmentClosed(PartitionLog log, SegmentInfo s) {
                    callbacks.forEach(Runnable::run);
                }
            };

    public LogManagerSource(LogManager logManager) {
        this.logManager = logManager;
    }

    @Override
    public List<TopicPartition> partitions() {
        List<TopicPartition> out = new ArrayList<>();
        for (PartitionLog log : logManager.partitions()) {
            TopicPartition tp = log.topicPartition();
            if (observed.add(tp)) {
                log.addListener(listener);
            }
            out.add(tp);
        }
        return out;
    }

    @Override
    public List<SegmentInfo> segments(TopicPartition tp) {
        return logManager.partition(tp).map(PartitionLog::segments).orElse(List.of());
    }

    @Override
    public BatchStream batches(SegmentInfo segment) throws IOException {
        if (!segment.closed()) {
            throw new IllegalArgumentException("segment " + segment + " is still active");
        }
        FileChannel channel = FileChannel.open(segment.logFile(), StandardOpenOption.READ);
        return new BatchStream(channel, 0, segment.sizeInBytes(), channel);
    }

    @Override
    public long lastStableOffset(TopicPartition tp) {
        return logManager.partition(tp).map(PartitionLog::lastStableOffset).orElse(0L);
    }

    @Override
    public List<AbortedTxn> abortedTransactions(TopicPartition tp, long from, long upTo)
            throws IOException {
        Optional<PartitionLog> log = logManager.partition(tp);
        return log.isEmpty() ? List.of() : log.get().abortedTransactions(from, upTo);
    }

    @Override
    public Optional<OngoingTxn> oldestOpenTransaction(TopicPartition tp) {
        return logManager.partition(tp).flatMap(l -> l.ongoingTransactions().stream().findFirst());
    }

    @Override
    public Exclusion exclusive(TopicPartition tp) throws InterruptedException {
        Optional<PartitionLog> log = logManager.partition(tp);
        if (log.isEmpty()) {
            return () -> {};
        }
        PartitionLog.Exclusion x = log.get().exclusive();
        return x::close;
    }

    @Override
    public void onSegmentClosed(Runnable callback) {
        callbacks.add(callback);
    }

    @Override
    public void reportCorruption(TopicPartition tp, long from, long to, String reason) {
        logManager.partition(tp).ifPresent(l -> l.markDamaged(from, to, reason));
    }

    @Override
    public String describe() {
        return "log manager " + logManager.logDir();
    }

    @Override
    public void close() {}
}
