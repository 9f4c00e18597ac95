package io.tierlog.compactor;

import io.tierlog.catalog.CatalogException;
import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.CommitConflictException;
import io.tierlog.catalog.CommitFailedException;
import io.tierlog.catalog.CommitResult;
import io.tierlog.catalog.CommitStateUnknownException;
import io.tierlog.catalog.PartitionState;
import io.tierlog.cold.ObjectKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cold compaction pass over one partition of a compacted topic (Kafka's log cleaner, applied to
 * the partition's committed objects through {@link io.tierlog.catalog.Catalog#replaceObjects}).
 *
 * <p>Plan: objects are <em>cleanable</em> while all their records are older than {@code
 * min.compaction.lag.ms} (their max timestamp); the cleanable ones at or above the partition's cold
 * cleaned offset are <em>dirty</em>. A pass runs when the dirty bytes are at least {@code
 * min.cleanable.dirty.ratio} of the cleanable bytes, when the oldest dirty record is older than
 * {@code max.compaction.lag.ms}, or when a tombstone kept by an earlier pass reached its delete
 * horizon.
 *
 * <p>Pass: a {@link ColdKeyMap} is built over the dirty objects, whole objects, oldest first, while
 * their record counts fit; the pass then rewrites every object from the cold log start through the
 * last mapped object, in runs of adjacent objects of up to {@code offload.target.object.bytes}.
 * Each run becomes one compacted object with exactly the run's offset range (its records sparse),
 * written to the temp dir, uploaded under a fresh key, verified, and committed in one {@code
 * replaceObjects} that keeps the partition's ranges contiguous; runs are committed oldest first and
 * the last one advances the cold cleaned offset past the mapped range. Oldest first is what keeps a
 * deleted key deleted: a tombstone is only removed in a pass starting at the cold log start, after
 * its delete horizon, and the older runs (where its key's values were dropped) are committed before
 * the run that loses it, so a crash between commits never leaves a value without its tombstone.
 *
 * <p>Commit outcomes follow the offload's rules: a conflict (retention, DeleteRecords or another
 * compactor changed the run) deletes the upload and ends the pass, to be re-planned; an unknown
 * outcome is retried with the same key (ALREADY_COMMITTED then means it went through) and, once
 * unknown, the upload is never deleted here (the orphan sweeper decides against the catalog).
 *
 * <p>Not thread-safe: the compactor runs one cleaner per partition at a time.
 */
final class ColdPartitionCleaner {
    private static final Logger LOG = LoggerFactory.getLogger(ColdPartitionCleaner.class);

    /** The catalog changed under the pass: nothing of the current run was committed. */
    static final class ReplanException extends IOException {
        private static final long serialVersionUID = 1L;

        ReplanException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** What a pass found to do; empty {@code dirty} with {@code horizonDue} cleans tombstones. */
    record Plan(
            PartitionState state,
            List<ColdObject> cleanable,
            List<ColdObject> dirty,
            long dirtyBytes,
            long cleanableBytes,
            String why) {}

    /** What a pass did. */
    record Outcome(
            int runsCommitted,
            int objectsReplaced,
            long bytesRead,
            long bytesWritten,
            long tombstonesRemoved,
            long cleanedOffset,
            long nextHorizonMs) {}

    private final PartitionOffloader.Env env;
    private final TopicPartition tp;
    private final CompactionConfig config;
    private final long dedupeBytes;
    private final Backoff backoff;

    ColdPartitionCleaner(
            PartitionOffloader.Env env,
            TopicPartition tp,
            CompactionConfig config,
            long dedupeBytes) {
        this.env = env;
        this.tp = tp;
        this.config = config;
        this.dedupeBytes = dedupeBytes;
        this.backoff = new Backoff(env.options().retryBackoff(), env.options().retryBackoffMax());
    }

    /**
     * The pass to run now, if any.
     *
     * @param tombstoneHorizonMs when a tombstone kept by the last pass may go (Long.MAX_VALUE if
     *     none is known)
     */
    Optional<Plan> plan(long tombstoneHorizonMs) {
        PartitionState state = env.catalog().partitionState(tp.topic(), tp.partition());
        if (state.empty()) {
            return Optional.empty();
        }
        long now = env.time().milliseconds();
        List<ColdObject> cleanable = new ArrayList<>();
        List<ColdObject> dirty = new ArrayList<>();
        long dirtyBytes = 0;
        long cleanableBytes = 0;
        for (ColdObject o : env.catalog().objects(tp.topic(), tp.partition())) {
            if (o.lastOffset() < state.coldLogStartOffset()) {
                continue;
            }
            if (o.recordCount() > 0 && now - o.maxTimestamp() < config.minCompactionLagMs()) {
                break; // newer objects are not cleanable yet either
            }
            cleanable.add(o);
            cleanableBytes += o.sizeInBytes();
            if (o.firstOffset() >= state.coldCleanedOffset()) {
                dirty.add(o);
                dirtyBytes += o.sizeInBytes();
            }
        }
        if (cleanable.isEmpty()) {
            return Optional.empty();
        }
        String why = null;
        if (!dirty.isEmpty()) {
            double ratio = (double) dirtyBytes / Math.max(1, cleanableBytes);
            ColdObject oldest = dirty.get(0);
            if (ratio >= config.minCleanableDirtyRatio()) {
                why = "dirty ratio " + String.format("%.2f", ratio);
            } else if (config.maxCompactionLagMs() != Long.MAX_VALUE
                    && oldest.recordCount() > 0
                    && now - oldest.minTimestamp() > config.maxCompactionLagMs()) {
                why = "max.compaction.lag.ms passed";
            }
        }
        if (why == null
                && now >= tombstoneHorizonMs
                && state.coldCleanedOffset() > cleanable.get(0).firstOffset()) {
            why = "a tombstone's delete horizon passed";
            dirty = List.of();
            dirtyBytes = 0;
        }
        if (why == null) {
            return Optional.empty();
        }
        return Optional.of(new Plan(state, cleanable, dirty, dirtyBytes, cleanableBytes, why));
    }

    /** Runs {@code plan}; stops early (without error) when the compactor stops. */
    Outcome clean(Plan plan) throws Exception {
        long now = env.time().milliseconds();
        ColdRunRewriter rewriter =
                new ColdRunRewriter(
                        env.store(), env.coldOptions(), env.typed().get(), env::throttle);
        ColdKeyMap map = new ColdKeyMap(dedupeBytes);
        long end = plan.state().coldCleanedOffset() - 1;
        long read = 0;
        for (ColdObject o : plan.dirty()) {
            if (map.size() + o.recordCount() > map.maxEntries()) {
                if (end < plan.state().coldCleanedOffset()) {
                    throw new PartitionOffloader.OffloadException(
                            tp
                                    + ": object "
                                    + o.key()
                                    + " has "
                                    + o.recordCount()
                                    + " records, more than cold.cleaner.dedupe.buffer.size holds"
                                    + " ("
                                    + map.maxEntries()
                                    + " keys)");
                }
                break;
            }
            rewriter.map(o, map);
            read += o.sizeInBytes();
            end = o.lastOffset();
        }
        long cleanedOffset = Math.max(plan.state().coldCleanedOffset(), end + 1);
        List<List<ColdObject>> runs = runs(plan.cleanable(), end);
        boolean fromLogStart =
                !runs.isEmpty()
                        && runs.get(0).get(0).firstOffset() <= plan.state().coldLogStartOffset();
        ColdRecordFilter filter =
                new ColdRecordFilter(now, config.deleteRetentionMs(), map, fromLogStart);
        int committed = 0;
        int replaced = 0;
        long written = 0;
        long removed = 0;
        for (int i = 0; i < runs.size(); i++) {
            if (env.retrier().isStopped()) {
                break;
            }
            List<ColdObject> run = runs.get(i);
            boolean last = i == runs.size() - 1;
            Path file = TempFiles.newFile(env.options().tmpDir());
            try {
                ColdRunRewriter.Rewritten r =
                        rewriter.rewrite(run, filter, file, tp.topic(), tp.partition());
                for (ColdObject o : run) {
                    read += o.sizeInBytes();
                }
                removed += r.tombstonesRemoved();
                boolean advances = last && cleanedOffset > plan.state().coldCleanedOffset();
                if (!r.changed() && !advances) {
                    continue; // nothing removed: the object stays as it is
                }
                long at = env.time().milliseconds();
                ColdObject replacement = replacement(run, r, file, at);
                env.uploadVerified(replacement.key(), file, replacement.sizeInBytes());
                commit(
                        run,
                        replacement,
                        last ? cleanedOffset : plan.state().coldCleanedOffset(),
                        at);
                committed++;
                replaced += run.size();
                written += replacement.sizeInBytes();
            } finally {
                Files.deleteIfExists(file);
            }
        }
        LOG.info(
                "cold compaction of {} ({}): {} runs committed replacing {} objects, {} bytes read,"
                        + " {} written, {} tombstones removed, cleaned offset {}",
                tp,
                plan.why(),
                committed,
                replaced,
                read,
                written,
                removed,
                cleanedOffset);
        return new Outcome(
                committed,
                replaced,
                read,
                written,
                removed,
                cleanedOffset,
                filter.earliestKeptHorizon());
    }

    /** Adjacent objects from the cold log start through {@code end}, grouped up to the target. */
    private List<List<ColdObject>> runs(List<ColdObject> cleanable, long end) {
        long target = env.options().targetObjectBytes();
        List<List<ColdObject>> runs = new ArrayList<>();
        List<ColdObject> run = new ArrayList<>();
        long bytes = 0;
        for (ColdObject o : cleanable) {
            if (o.lastOffset() > end) {
                break;
            }
            if (!run.isEmpty() && bytes + o.sizeInBytes() > target) {
                runs.add(run);
                run = new ArrayList<>();
                bytes = 0;
            }
            run.add(o);
            bytes += o.sizeInBytes();
        }
        if (!run.isEmpty()) {
            runs.add(run);
        }
        return runs;
    }

    private ColdObject replacement(
            List<ColdObject> run, ColdRunRewriter.Rewritten r, Path file, long at)
            throws IOException {
        long first = run.get(0).firstOffset();
        long lastOffset = run.get(run.size() - 1).lastOffset();
        String key =
                ObjectKeys.newKey(
                        env.coldOptions().prefix(), tp.topic(), tp.partition(), first, lastOffset);
        long minTs =
                r.object().recordCount() == 0
                        ? run.get(0).minTimestamp()
                        : r.object().minTimestamp();
        long maxTs =
                r.object().recordCount() == 0
                        ? run.get(run.size() - 1).maxTimestamp()
                        : r.object().maxTimestamp();
        return new ColdObject(
                tp.topic(),
                tp.partition(),
                first,
                lastOffset,
                minTs,
                maxTs,
                r.object().recordCount(),
                Files.size(file),
                key,
                Instant.ofEpochMilli(at));
    }

    private void commit(List<ColdObject> run, ColdObject obj, long cleanedOffset, long at)
            throws Exception {
        List<String> keys = run.stream().map(ColdObject::key).toList();
        long maxAge = env.options().orphanGrace().toMillis() / 2;
        long deadline = env.time().milliseconds() + env.options().retryTimeout().toMillis();
        boolean outcomeUnknown = false;
        for (int attempt = 1; ; attempt++) {
            if (env.time().milliseconds() - at > maxAge) {
                throw new PartitionOffloader.OffloadException(
                        "gave up committing "
                                + obj.key()
                                + ": uploaded longer ago than half of"
                                + " offload.orphan.grace.ms; left for the orphan sweeper");
            }
            io.tierlog.catalog.CatalogGuard g = env.guard().get();
            if (g != null && !g.allows("replace-commit of " + obj.key())) {
                if (!outcomeUnknown) {
                    deleteObject(obj.key());
                }
                throw new PartitionOffloader.OffloadException(
                        tp + ": catalog not usable, replace-commit of " + obj.key() + " refused");
            }
            RuntimeException failure;
            try {
                CommitResult result =
                        env.catalog()
                                .replaceObjects(
                                        tp.topic(), tp.partition(), keys, obj, cleanedOffset, at);
                LOG.debug("{} {} replacing {}", result, obj.key(), keys);
                return;
            } catch (CommitConflictException e) {
                if (!outcomeUnknown) {
                    deleteObject(obj.key());
                }
                throw new ReplanException(
                        tp
                                + ": the run "
                                + keys
                                + " changed before its replace-commit: "
                                + e.getMessage(),
                        e);
            } catch (CommitStateUnknownException e) {
                outcomeUnknown = true;
                failure = e;
            } catch (CommitFailedException e) {
                if (e.getCause() == null) {
                    if (!outcomeUnknown) {
                        deleteObject(obj.key());
                    }
                    throw e;
                }
                failure = e;
            } catch (CatalogException e) {
                outcomeUnknown = true;
                failure = e;
            }
            if (env.time().milliseconds() >= deadline || env.retrier().isStopped()) {
                if (!outcomeUnknown) {
                    deleteObject(obj.key());
                }
                throw new PartitionOffloader.OffloadException(
                        "replace-commit of " + obj.key() + " failed " + attempt + " times",
                        failure);
            }
            long wait = backoff.delayMs(attempt);
            LOG.warn(
                    "replace-commit of {} failed (attempt {}{}), retrying in {} ms: {}",
                    obj.key(),
                    attempt,
                    outcomeUnknown ? ", outcome unknown" : "",
                    wait,
                    failure.toString());
            env.retrier().pause(wait);
        }
    }

    private void deleteObject(String key) {
        try {
            env.retrier()
                    .run(
                            "delete of " + key,
                            () -> {
                                env.store().delete(key);
                                return null;
                            },
                            Retrier::io);
        } catch (Exception e) {
            LOG.warn(
                    "could not delete uncommitted object {} (the orphan sweeper will): {}",
                    key,
                    e.toString());
        }
    }
}
