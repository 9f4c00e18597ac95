package io.tierlog.compactor;

import io.tierlog.catalog.CatalogException;
import io.tierlog.catalog.CatalogGuard;
import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.CommitConflictException;
import io.tierlog.catalog.CommitFailedException;
import io.tierlog.catalog.CommitResult;
import io.tierlog.catalog.CommitStateUnknownException;
import io.tierlog.catalog.PartitionState;
import io.tierlog.cold.ObjectKeys;
import io.tierlog.cold.WrittenObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One small-object merge pass over one partition, of any topic: runs of at least two adjacent
 * committed objects, each smaller than a quarter of {@code offload.target.object.bytes} and
 * committed at least {@code offload.merge.min.age.ms} ago, of up to the target size together, are
 * each rewritten into one object holding exactly their batches ({@link ColdRunRewriter#copy}: same
 * offsets, records, headers, timestamps and transactional outcomes; typed columns as the topic has
 * them now), uploaded under a fresh key, verified, and committed with {@link
 * io.tierlog.catalog.Catalog#mergeObjects}, which retires the run and leaves the cold cleaned
 * offset alone.
 *
 * <p>A run never straddles the partition's cold cleaned offset: below it the objects may be
 * compacted (sparse offsets) and the copy is marked compacted, so that a catalog rebuilt from the
 * bucket prefers it to the originals and reads at most the true cleaned offset from it; at or above
 * it the objects are as offloaded and the copy is an ordinary object of exactly their range (a
 * rebuild then prefers it as the shorter chain, and reads no cleaning from it).
 *
 * <p>Crash safety: a halt between upload and commit leaves an orphan (the sweeper deletes it);
 * after the commit the run is retired. A conflict (retention, DeleteRecords, a compaction or
 * another merger changed the run) deletes the upload and ends the pass for the partition, to be
 * planned again; an unknown outcome is retried with the same key and, once unknown, the upload is
 * never deleted here.
 *
 * <p>Not thread-safe: the compactor runs one merger per partition at a time.
 */
final class SmallObjectMerger {
    private static final Logger LOG = LoggerFactory.getLogger(SmallObjectMerger.class);

    /** What a pass did. */
    record Outcome(int runsMerged, int objectsReplaced, int conflicts) {
        static final Outcome NONE = new Outcome(0, 0, 0);
    }

    private final PartitionOffloader.Env env;
    private final TopicPartition tp;
    private final Backoff backoff;

    SmallObjectMerger(PartitionOffloader.Env env, TopicPartition tp) {
        this.env = env;
        this.tp = tp;
        this.backoff = new Backoff(env.options().retryBackoff(), env.options().retryBackoffMax());
    }

    /** The runs to merge now, oldest first (empty when there is nothing to merge). */
    List<List<ColdObject>> plan() {
        PartitionState state = env.catalog().partitionState(tp.topic(), tp.partition());
        if (state.empty()) {
            return List.of();
        }
        long target = env.options().targetObjectBytes();
        long small = target / 4;
        long minAge = env.options().mergeMinAge().toMillis();
        long cleaned = state.coldCleanedOffset();
        long now = env.time().milliseconds();
        List<List<ColdObject>> runs = new ArrayList<>();
        List<ColdObject> run = new ArrayList<>();
        long bytes = 0;
        for (ColdObject o : env.catalog().objects(tp.topic(), tp.partition())) {
            boolean straddles = o.firstOffset() < cleaned && o.lastOffset() >= cleaned;
            boolean eligible =
                    o.sizeInBytes() < small
                            && now - o.createdAt().toEpochMilli() >= minAge
                            && !straddles;
            if (!run.isEmpty()) {
                ColdObject prev = run.get(run.size() - 1);
                boolean sameSide = (prev.lastOffset() < cleaned) == (o.lastOffset() < cleaned);
                if (!eligible
                        || prev.nextOffset() != o.firstOffset()
                        || bytes + o.sizeInBytes() > target
                        || !sameSide) {
                    if (run.size() >= 2) {
                        runs.add(run);
                    }
                    run = new ArrayList<>();
                    bytes = 0;
                }
            }
            if (eligible) {
                run.add(o);
                bytes += o.sizeInBytes();
            }
        }
        if (run.size() >= 2) {
            runs.add(run);
        }
        return runs;
    }

    /** Merges {@code runs} (from {@link #plan}); stops early (without error) when stopped. */
    Outcome merge(List<List<ColdObject>> runs) throws Exception {
        if (runs.isEmpty()) {
            return Outcome.NONE;
        }
        long cleaned = env.catalog().partitionState(tp.topic(), tp.partition()).coldCleanedOffset();
        ColdRunRewriter rewriter =
                new ColdRunRewriter(
                        env.store(), env.coldOptions(), env.typed().get(), env::throttle);
        int merged = 0;
        int replaced = 0;
        for (List<ColdObject> run : runs) {
            if (env.retrier().isStopped()) {
                break;
            }
            long start = System.nanoTime();
            boolean compacted = run.get(run.size() - 1).lastOffset() < cleaned;
            Path file = TempFiles.newFile(env.options().tmpDir());
            try {
                WrittenObject w;
                try {
                    w = rewriter.copy(run, file, tp.topic(), tp.partition(), compacted);
                } catch (ColdRunRewriter.NotCopyableException e) {
                    LOG.info("{}: run {} not merged: {}", tp, keys(run), e.getMessage());
                    continue;
                }
                long at = env.time().milliseconds();
                ColdObject replacement = replacement(run, w, file, at);
                env.uploadVerified(replacement.key(), file, replacement.sizeInBytes());
                CommitResult result;
                try {
                    result = commit(run, replacement, at);
                } catch (CommitConflictException e) {
                    LOG.info(
                            "{}: merge of {} lost to a concurrent change, planned again next"
                                    + " pass: {}",
                            tp,
                            keys(run),
                            e.getMessage());
                    return new Outcome(merged, replaced, 1);
                }
                merged++;
                replaced += run.size();
                long source = run.stream().mapToLong(ColdObject::sizeInBytes).sum();
                ObjectReport report =
                        new ObjectReport(
                                tp,
                                replacement.firstOffset(),
                                replacement.lastOffset(),
                                replacement.recordCount(),
                                source,
                                replacement.sizeInBytes(),
                                replacement.key(),
                                System.nanoTime() - start,
                                result);
                env.listener().onObjectsMerged(tp, keys(run), report);
            } finally {
                Files.deleteIfExists(file);
            }
        }
        if (merged > 0) {
            LOG.info("merged {} small objects of {} into {}", replaced, tp, merged);
        }
        return new Outcome(merged, replaced, 0);
    }

    private static List<String> keys(List<ColdObject> run) {
        return run.stream().map(ColdObject::key).toList();
    }

    private ColdObject replacement(List<ColdObject> run, WrittenObject w, Path file, long at)
            throws IOException {
        long first = run.get(0).firstOffset();
        long last = run.get(run.size() - 1).lastOffset();
        String key =
                ObjectKeys.newKey(
                        env.coldOptions().prefix(), tp.topic(), tp.partition(), first, last);
        boolean rows = w.recordCount() > 0;
        return new ColdObject(
                tp.topic(),
                tp.partition(),
                first,
                last,
                rows ? w.minTimestamp() : run.get(0).minTimestamp(),
                rows ? w.maxTimestamp() : run.get(run.size() - 1).maxTimestamp(),
                w.recordCount(),
                Files.size(file),
                key,
                Instant.ofEpochMilli(at));
    }

    /**
     * Commits the merge, retrying failures before the commit point and unknown outcomes.
     *
     * @throws CommitConflictException the run changed first; the upload is deleted (unless an
     *     earlier attempt's outcome was unknown)
     */
    private CommitResult commit(List<ColdObject> run, ColdObject obj, long at) throws Exception {
        List<String> keys = keys(run);
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
            CatalogGuard g = env.guard().get();
            if (g != null && !g.allows("merge-commit of " + obj.key())) {
                if (!outcomeUnknown) {
                    deleteObject(obj.key());
                }
                throw new PartitionOffloader.OffloadException(
                        tp + ": catalog not usable, merge-commit of " + obj.key() + " refused");
            }
            RuntimeException failure;
            try {
                HaltHooks.at("merge-before-commit");
                CommitResult result =
                        env.catalog().mergeObjects(tp.topic(), tp.partition(), keys, obj, at);
                HaltHooks.at("merge-after-commit");
                LOG.debug("{} {} merging {}", result, obj.key(), keys);
                return result;
            } catch (CommitConflictException e) {
                if (!outcomeUnknown) {
                    deleteObject(obj.key());
                }
                throw e;
            } catch (UnsupportedOperationException e) {
                deleteObject(obj.key());
                throw e;
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
                        "merge-commit of " + obj.key() + " failed " + attempt + " times", failure);
            }
            long wait = backoff.delayMs(attempt);
            LOG.warn(
                    "merge-commit of {} failed (attempt {}{}), retrying in {} ms: {}",
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
