package io.tierlog.compactor.testing;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.CommitFailedException;
import io.tierlog.catalog.CommitResult;
import io.tierlog.catalog.CommitStateUnknownException;
import io.tierlog.catalog.PartitionState;
import io.tierlog.catalog.RetiredObject;
import io.tierlog.catalog.TopicRecord;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real catalog with fault knobs on {@link #commit}: the next N commits can fail before the commit
 * point (known failure), fail with an unknown outcome without committing, or commit and then report
 * an unknown outcome (the lost-acknowledgement case); the same two unknown outcomes and a hook run
 * before each call for {@link #replaceObjects} (and {@link #mergeObjects}, with its own counters).
 * Everything else is delegated. Thread-safe.
 */
public final class FaultyCatalog implements Catalog {
    private final Catalog delegate;

    /** Commits that fail before the commit point (retryable, nothing written). */
    public final AtomicInteger failBeforeCommit = new AtomicInteger();

    /** Commits that report an unknown outcome without committing. */
    public final AtomicInteger unknownNotCommitted = new AtomicInteger();

    /** Commits that commit, then report an unknown outcome. */
    public final AtomicInteger unknownButCommitted = new AtomicInteger();

    /** Commits refused permanently (as for an unknown topic). */
    public final AtomicInteger refuse = new AtomicInteger();

    public final AtomicInteger commitCalls = new AtomicInteger();

    /** Replace-commits that report an unknown outcome without committing. */
    public final AtomicInteger replaceUnknownNotCommitted = new AtomicInteger();

    /** Replace-commits that commit, then report an unknown outcome. */
    public final AtomicInteger replaceUnknownButCommitted = new AtomicInteger();

    /** Runs before every replace-commit (e.g. a concurrent retention pass, for a conflict). */
    public volatile Runnable beforeReplace = () -> {};

    public final AtomicInteger replaceCalls = new AtomicInteger();

    /** Merge-commits that report an unknown outcome without committing. */
    public final AtomicInteger mergeUnknownNotCommitted = new AtomicInteger();

    /** Merge-commits that commit, then report an unknown outcome. */
    public final AtomicInteger mergeUnknownButCommitted = new AtomicInteger();

    /** Runs before every merge-commit (e.g. a concurrent retention pass, for a conflict). */
    public volatile Runnable beforeMerge = () -> {};

    public final AtomicInteger mergeCalls = new AtomicInteger();

    /**
     * Answered once by the next {@link #objects} call instead of the catalog's list: a view taken
     * just before another process changed the partition (the timing of a read racing a replace).
     */
    public final java.util.concurrent.atomic.AtomicReference<List<ColdObject>> staleObjects =
            new java.util.concurrent.atomic.AtomicReference<>();

    public FaultyCatalog(Catalog delegate) {
        this.delegate = delegate;
    }

    @Override
    public java.util.UUID id() {
        return delegate.id();
    }

    @Override
    public java.util.UUID durableId() {
        return delegate.durableId();
    }

    @Override
    public TopicRecord importTopic(
            java.util.UUID id, String name, int partitions, java.util.Map<String, String> configs) {
        return delegate.importTopic(id, name, partitions, configs);
    }

    @Override
    public String describe() {
        return delegate.describe();
    }

    @Override
    public CommitResult commit(ColdObject obj) {
        commitCalls.incrementAndGet();
        if (take(refuse)) {
            throw new CommitFailedException("injected refusal of " + obj.key());
        }
        if (take(failBeforeCommit)) {
            throw new CommitFailedException(
                    "injected failure before the commit point",
                    new SQLException("injected: connection refused", "08001"));
        }
        if (take(unknownNotCommitted)) {
            throw new CommitStateUnknownException(
                    "injected unknown outcome (not committed)", new SQLException("injected"));
        }
        if (take(unknownButCommitted)) {
            delegate.commit(obj);
            throw new CommitStateUnknownException(
                    "injected unknown outcome (committed)", new SQLException("injected"));
        }
        return delegate.commit(obj);
    }

    private static boolean take(AtomicInteger counter) {
        return counter.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
    }

    @Override
    public TopicRecord createTopic(String name, int partitions, Map<String, String> configs) {
        return delegate.createTopic(name, partitions, configs);
    }

    @Override
    public Optional<TopicRecord> topic(String name) {
        return delegate.topic(name);
    }

    @Override
    public List<TopicRecord> topics() {
        return delegate.topics();
    }

    @Override
    public void deleteTopic(String name) {
        delegate.deleteTopic(name);
    }

    @Override
    public TopicRecord ensurePartitions(String name, int partitions) {
        return delegate.ensurePartitions(name, partitions);
    }

    @Override
    public TopicRecord updateTopicConfigs(String name, Map<String, String> configs) {
        return delegate.updateTopicConfigs(name, configs);
    }

    @Override
    public PartitionState partitionState(String topic, int partition) {
        return delegate.partitionState(topic, partition);
    }

    @Override
    public Optional<ColdObject> objectFor(String topic, int partition, long offset) {
        return delegate.objectFor(topic, partition, offset);
    }

    @Override
    public Optional<ColdObject> firstObjectReaching(String topic, int partition, long timestampMs) {
        return delegate.firstObjectReaching(topic, partition, timestampMs);
    }

    @Override
    public List<ColdObject> objects(String topic, int partition) {
        List<ColdObject> stale = staleObjects.getAndSet(null);
        if (stale != null) {
            return stale;
        }
        return delegate.objects(topic, partition);
    }

    @Override
    public List<ColdObject> removeObjectsBelow(String topic, int partition, long offset) {
        return delegate.removeObjectsBelow(topic, partition, offset);
    }

    @Override
    public io.tierlog.catalog.LogStartUpdate advanceLogStart(
            String topic, int partition, long offset, long coldFloor) {
        return delegate.advanceLogStart(topic, partition, offset, coldFloor);
    }

    @Override
    public CommitResult replaceObjects(
            String topic,
            int partition,
            List<String> replacedKeys,
            ColdObject replacement,
            long cleanedOffset,
            long atMs) {
        replaceCalls.incrementAndGet();
        beforeReplace.run();
        if (take(replaceUnknownNotCommitted)) {
            throw new CommitStateUnknownException(
                    "injected unknown outcome of a replace (not committed)",
                    new SQLException("injected"));
        }
        if (take(replaceUnknownButCommitted)) {
            delegate.replaceObjects(
                    topic, partition, replacedKeys, replacement, cleanedOffset, atMs);
            throw new CommitStateUnknownException(
                    "injected unknown outcome of a replace (committed)",
                    new SQLException("injected"));
        }
        return delegate.replaceObjects(
                topic, partition, replacedKeys, replacement, cleanedOffset, atMs);
    }

    @Override
    public CommitResult mergeObjects(
            String topic,
            int partition,
            List<String> replacedKeys,
            ColdObject replacement,
            long atMs) {
        mergeCalls.incrementAndGet();
        beforeMerge.run();
        if (take(mergeUnknownNotCommitted)) {
            throw new CommitStateUnknownException(
                    "injected unknown outcome of a merge (not committed)",
                    new SQLException("injected"));
        }
        if (take(mergeUnknownButCommitted)) {
            delegate.mergeObjects(topic, partition, replacedKeys, replacement, atMs);
            throw new CommitStateUnknownException(
                    "injected unknown outcome of a merge (committed)",
                    new SQLException("injected"));
        }
        return delegate.mergeObjects(topic, partition, replacedKeys, replacement, atMs);
    }

    @Override
    public List<RetiredObject> retiredObjects(long retiredAtOrBeforeMs) {
        return delegate.retiredObjects(retiredAtOrBeforeMs);
    }

    @Override
    public void forgetRetired(String key) {
        delegate.forgetRetired(key);
    }

    @Override
    public List<String> allObjectKeys() {
        return delegate.allObjectKeys();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
