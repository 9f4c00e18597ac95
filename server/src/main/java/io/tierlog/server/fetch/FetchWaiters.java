package io.tierlog.server.fetch;

import io.tierlog.engine.AppendListener;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;

/**
 * Long-poll fetches waiting for data, by partition (Kafka's fetch purgatory). Registered as a
 * {@link AppendListener} with the engine: an append wakes the fetches waiting on that partition,
 * which then re-read and answer if they have enough bytes. When nobody waits an append costs one
 * map lookup. Thread-safe.
 */
public final class FetchWaiters implements AppendListener {
    /** A waiting fetch; {@link #wake()} must be cheap and thread-safe (it hops to its loop). */
    public interface Waiter {
        void wake();
    }

    private final ConcurrentHashMap<TopicPartition, Set<Waiter>> waiters =
            new ConcurrentHashMap<>();

    public void register(Collection<TopicPartition> partitions, Waiter w) {
        for (TopicPartition tp : partitions) {
            waiters.computeIfAbsent(tp, k -> ConcurrentHashMap.newKeySet()).add(w);
        }
    }

    public void unregister(Collection<TopicPartition> partitions, Waiter w) {
        for (TopicPartition tp : partitions) {
            waiters.computeIfPresent(
                    tp,
                    (k, set) -> {
                        set.remove(w);
                        return set.isEmpty() ? null : set;
                    });
        }
    }

    /** Wakes every fetch waiting on {@code tp}. */
    public void wake(TopicPartition tp) {
        Set<Waiter> set = waiters.get(tp);
        if (set != null) {
            for (Waiter w : set) {
                w.wake();
            }
        }
    }

    @Override
    public void onAppend(TopicPartition tp, long highWatermark) {
        wake(tp);
    }

    /** Number of partitions with waiting fetches (tests). */
    public int waitingPartitions() {
        return waiters.size();
    }
}
