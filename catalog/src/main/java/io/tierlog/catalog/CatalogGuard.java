package io.tierlog.catalog;

import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asked before anything is destroyed or committed on the catalog's word: deleting a hot segment
 * below the cold high watermark, committing an offloaded object, sweeping orphans, cold retention.
 * It allows the action only if the catalog is provably the data dir's own and still durable ({@link
 * Catalog#durableId()} succeeds and equals the expected id). Otherwise it refuses, logs one ERROR
 * line per problem at most every {@link #LOG_INTERVAL_MS} (naming the catalog and what is wrong),
 * and counts the refusal; hot produce and fetch do not ask it and go on. When the catalog is back
 * with the same id, the next check allows again (and says so at INFO).
 *
 * <p>Thread-safe.
 */
public final class CatalogGuard {
    private static final Logger LOG = LoggerFactory.getLogger(CatalogGuard.class);

    /** Minimum time between two ERROR lines about the same problem. */
    public static final long LOG_INTERVAL_MS = 30_000;

    private final Catalog catalog;
    private final UUID expected;
    private final LongSupplier clockMs;
    private final AtomicLong refusals = new AtomicLong();
    private volatile boolean healthy = true;
    private String lastProblem; // guarded by this
    private long lastLoggedMs; // guarded by this

    /**
     * @param expected the id the catalog must have (the data dir's {@code catalog.id})
     * @param clockMs milliseconds, for rate-limiting the log
     */
    public CatalogGuard(Catalog catalog, UUID expected, LongSupplier clockMs) {
        this.catalog = Objects.requireNonNull(catalog, "catalog");
        this.expected = Objects.requireNonNull(expected, "expected");
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
    }

    /**
     * Checks the catalog now; {@code action} says what would be done (for the log line).
     *
     * @return whether the action may proceed
     */
    public boolean allows(String action) {
        String problem;
        try {
            UUID now = catalog.durableId();
            if (now.equals(expected)) {
                if (!healthy) {
                    synchronized (this) {
                        lastProblem = null;
                    }
                    LOG.info(
                            "catalog {} is healthy again (id {}): offload commits and local"
                                    + " deletion resume",
                            catalog.describe(),
                            expected);
                }
                healthy = true;
                return true;
            }
            problem =
                    "catalog "
                            + catalog.describe()
                            + " now has id "
                            + now
                            + ", not the data dir's "
                            + expected;
        } catch (RuntimeException e) {
            problem = String.valueOf(e.getMessage());
        }
        healthy = false;
        refusals.incrementAndGet();
        maybeLog(problem, action);
        return false;
    }

    private void maybeLog(String problem, String action) {
        long now = clockMs.getAsLong();
        synchronized (this) {
            if (problem.equals(lastProblem) && now - lastLoggedMs < LOG_INTERVAL_MS) {
                return;
            }
            lastProblem = problem;
            lastLoggedMs = now;
        }
        LOG.error(
                "catalog {} is not usable: {}. Refusing {}; offload commits, orphan sweeping and"
                        + " local segment deletion stay stopped until the catalog is back (restore"
                        + " it, or run `tierlog catalog rebuild`), hot produce and fetch go on ({}"
                        + " refusals so far)",
                catalog.describe(),
                problem,
                action,
                refusals.get());
    }

    /** The verdict of the last check (true before the first). */
    public boolean healthy() {
        return healthy;
    }

    /** How many actions were refused so far. */
    public long refusals() {
        return refusals.get();
    }

    /** The id the catalog must have. */
    public UUID expectedId() {
        return expected;
    }
}
