package io.tierlog.engine;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tierlog.catalog.CatalogException;
import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ObjectCorruptException;
import io.tierlog.cold.ObjectNotFoundException;
import io.tierlog.cold.ObjectStoreException;
import io.tierlog.cold.ObjectStoreTimeoutException;
import io.tierlog.common.Time;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a failed cold read leaves behind, so that no failure is silent: a count in {@link
 * MetricNames#COLD_READ_ERRORS} tagged with its {@link Cause}, and a WARN line naming the
 * partition, the offset read, the object key, the object's offset range and the cause, at most once
 * per object (or partition, when no object was located) per {@link #LOG_INTERVAL_MS}, with the
 * number of failures not logged since, however often consumers retry.
 *
 * <p>Thread-safe.
 */
final class ColdReadErrors {
    private static final Logger log = LoggerFactory.getLogger(ColdReader.class);

    /** Least time between two WARN lines about the same object (or partition). */
    static final long LOG_INTERVAL_MS = 60_000;

    /** The {@code cause} tag of {@link MetricNames#COLD_READ_ERRORS}. */
    enum Cause {
        /** The catalog names an object the store does not have. */
        NOT_FOUND,
        /** The object was fetched but does not decode (damaged Parquet or metadata). */
        CORRUPT,
        /** The store did not answer within a deadline. */
        TIMEOUT,
        /** The store answered with an error or could not be reached. */
        UNAVAILABLE,
        /** The catalog could not be read. */
        CATALOG,
        /** Anything else (a bug: the log line has the stack trace). */
        OTHER;

        String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        static Cause of(Throwable e) {
            for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
                if (t instanceof TimeoutException || t instanceof ObjectStoreTimeoutException) {
                    return TIMEOUT;
                }
                if (t instanceof ObjectNotFoundException) {
                    return NOT_FOUND;
                }
                if (t instanceof ObjectCorruptException) {
                    return CORRUPT;
                }
                if (t instanceof ObjectStoreException) {
                    return UNAVAILABLE;
                }
                if (t instanceof CatalogException) {
                    return CATALOG;
                }
            }
            return OTHER;
        }
    }

    private final Map<Cause, Counter> counters = new EnumMap<>(Cause.class);
    private final Time time;

    /** When a WARN about an object key (or "partition:" + tp) was last logged, in ms. */
    private final Cache<String, Long> lastLogged =
            Caffeine.newBuilder().maximumSize(10_000).build();

    /** Failures not logged since the last line, per key (rate limiting). */
    private final Map<String, AtomicLong> suppressed = new ConcurrentHashMap<>();

    ColdReadErrors(MeterRegistry registry, Time time) {
        this.time = time;
        for (Cause c : Cause.values()) {
            counters.put(c, registry.counter(MetricNames.COLD_READ_ERRORS, "cause", c.tag()));
        }
    }

    /**
     * Counts and (rate-limited) logs a failed read, and returns what the caller sees: {@link
     * OffsetOutOfRangeException} as is (not an error of the cold tier), else a {@link
     * ColdReadException}.
     */
    RuntimeException failed(TopicPartition tp, long offset, ColdObject obj, Throwable e) {
        Throwable cause = ColdReader.unwrap(e);
        if (cause instanceof OffsetOutOfRangeException o) {
            return o;
        }
        Cause kind = Cause.of(cause);
        counters.get(kind).increment();
        String logKey = obj == null ? "partition:" + tp : obj.key();
        long now = time.milliseconds();
        Long last = lastLogged.getIfPresent(logKey);
        if (last == null || now - last >= LOG_INTERVAL_MS) {
            lastLogged.put(logKey, now);
            AtomicLong s = suppressed.remove(logKey);
            String more =
                    s == null || s.get() == 0
                            ? ""
                            : " (" + s.get() + " more failures of it in the last minute)";
            String where =
                    obj == null
                            ? "(no object located)"
                            : "object "
                                    + obj.key()
                                    + " offsets ["
                                    + obj.firstOffset()
                                    + ", "
                                    + obj.lastOffset()
                                    + "]";
            if (kind == Cause.OTHER) {
                log.warn(
                        "cold read of {} at offset {} failed ({}), {}{}",
                        tp,
                        offset,
                        kind.tag(),
                        where,
                        more,
                        cause);
            } else {
                log.warn(
                        "cold read of {} at offset {} failed ({}), {}: {}{}",
                        tp,
                        offset,
                        kind.tag(),
                        where,
                        cause.toString(),
                        more);
            }
        } else {
            suppressed.computeIfAbsent(logKey, k -> new AtomicLong()).incrementAndGet();
        }
        if (cause instanceof ColdReadException c) {
            return c;
        }
        return new ColdReadException(
                "cold read of "
                        + tp
                        + " at offset "
                        + offset
                        + (obj == null ? "" : " from " + obj.key())
                        + " failed ("
                        + kind.tag()
                        + "): "
                        + cause,
                cause);
    }
}
