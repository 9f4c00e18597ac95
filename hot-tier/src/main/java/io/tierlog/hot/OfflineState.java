package io.tierlog.hot;

import io.tierlog.common.Time;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether one partition's log is offline after a storage fault, when to try recovering it, and the
 * recovery itself ({@link #reload}): Kafka takes a log dir offline until a restart; tierlog retries
 * on its own, after {@link #RETRY_MIN_MS}, doubling up to {@link #RETRY_MAX_MS}. Every change of
 * state is logged here: ERROR when the log goes offline, WARN for each failed attempt, INFO when it
 * is back.
 *
 * <p>Thread-safety: mutators are called under the log's lock; {@link #isOffline()} and {@link
 * #check()} may be called without it.
 */
final class OfflineState {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionLog.class);

    /** First delay before an offline log is recovered from disk; doubles on each failure. */
    static final long RETRY_MIN_MS = 1000;

    /** Longest delay between two recovery attempts of an offline log. */
    static final long RETRY_MAX_MS = 10_000;

    private final TopicPartition tp;
    private final Time time;
    private volatile Throwable cause;
    private long nextAttemptMs;
    private long backoffMs = RETRY_MIN_MS;

    OfflineState(TopicPartition tp, Time time) {
        this.tp = tp;
        this.time = time;
    }

    boolean isOffline() {
        return cause != null;
    }

    /**
     * @throws LogOfflineException while offline
     */
    void check() throws LogOfflineException {
        Throwable c = cause;
        if (c != null) {
            throw new LogOfflineException(tp, c);
        }
    }

    /**
     * Takes the log offline after {@code fault} in {@code what} (the first fault is kept and
     * logged), and returns the exception to throw to the caller.
     */
    LogOfflineException takeOffline(String what, Throwable fault, long logEnd, long acknowledged) {
        if (cause == null) {
            cause = fault;
            backoffMs = RETRY_MIN_MS;
            nextAttemptMs = time.milliseconds() + backoffMs;
            LOG.error(
                    "{} is OFFLINE after a storage error in {} (log end {}, last acknowledged"
                            + " offset {}); produce and fetch answer KAFKA_STORAGE_ERROR until it"
                            + " is recovered from disk (first attempt in {} ms)",
                    tp,
                    what,
                    logEnd,
                    acknowledged - 1,
                    backoffMs,
                    fault);
        }
        return new LogOfflineException(tp, cause);
    }

    /** True when offline and the delay before the next recovery attempt has passed. */
    boolean attemptDue() {
        return cause != null && time.milliseconds() >= nextAttemptMs;
    }

    /** Makes the next {@link #attemptDue()} true (a last attempt on close). */
    void attemptNow() {
        nextAttemptMs = Long.MIN_VALUE;
    }

    void attemptFailed(Throwable e) {
        backoffMs = Math.min(backoffMs * 2, RETRY_MAX_MS);
        nextAttemptMs = time.milliseconds() + backoffMs;
        LOG.warn(
                "{} is still offline: recovery from disk failed ({}); next attempt in {} ms",
                tp,
                e.toString(),
                backoffMs);
    }

    void online(long logEnd, long droppedBytes) {
        cause = null;
        backoffMs = RETRY_MIN_MS;
        LOG.info(
                "{} is back ONLINE: recovered from disk, log end {}; {} bytes written after the last"
                        + " acknowledged offset dropped",
                tp,
                logEnd,
                droppedBytes);
    }

    /**
     * Segments reopened from disk by {@link #reload}, and the bytes cut past the acknowledged end.
     */
    record Reloaded(List<LogSegment> segments, long droppedBytes) {}

    /**
     * Reopens the segments of {@code dir} as after an unclean stop (every segment from the one
     * holding {@code recoveryPoint} is CRC-scanned and its indexes rebuilt, which fails while the
     * disk is still full), cuts everything at or past {@code acknowledged} (the old high watermark:
     * what no client was told succeeded) and rebuilds producer state.
     *
     * @throws IOException also when the log on disk ends below {@code acknowledged}: acknowledged
     *     records are missing, and handing their offsets out again is never right
     */
    static Reloaded reload(
            Path dir,
            LogConfig config,
            boolean offsetGaps,
            long recoveryPoint,
            long acknowledged,
            ProducerStateManager producers,
            OpenFiles files)
            throws IOException {
        List<LogSegment> loaded =
                LogLoader.load(dir, config, recoveryPoint, false, offsetGaps, files);
        long dropped = 0;
        try {
            while (loaded.size() > 1 && loaded.get(loaded.size() - 1).baseOffset >= acknowledged) {
                LogSegment s = loaded.remove(loaded.size() - 1);
                dropped += s.size();
                s.closeQuietly();
                LogLoader.deleteSegmentFiles(dir, s.baseOffset);
            }
            LogSegment active = loaded.get(loaded.size() - 1);
            if (active.nextOffset() > acknowledged) {
                dropped += active.truncateToOffset(acknowledged);
            } else if (active.isClosed()) {
                active.reactivate();
            }
            if (active.nextOffset() < acknowledged) {
                throw new IOException(
                        "log end "
                                + active.nextOffset()
                                + " on disk is below the last acknowledged offset "
                                + (acknowledged - 1)
                                + ": acknowledged records are missing");
            }
            active.flush();
            LogLoader.rebuildProducerState(dir, loaded, producers);
            return new Reloaded(loaded, dropped);
        } catch (IOException | RuntimeException | Error e) {
            for (LogSegment s : loaded) {
                s.closeQuietly();
            }
            throw e;
        }
    }
}
