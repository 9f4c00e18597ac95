package io.tierlog.engine;

import io.tierlog.cold.ObjectFooter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * How {@code tierlog catalog rebuild} chooses the objects of one partition to commit from what the
 * bucket holds: a chain of objects, contiguous and without overlap, from the lowest offset found to
 * the highest. The bucket may hold more than one object for an offset: orphans of retried uploads
 * (exact duplicates of a range), and the originals a compaction replaced next to the compacted
 * object ({@link ObjectFooter#compacted()}; several levels of them when a compacted object was
 * compacted again). Of all the chains that cover the offsets, the one chosen holds the most offsets
 * in compacted objects (what the lost catalog held: compaction only ever replaced originals), then
 * the fewest objects, then the lowest keys. Left out objects lying within a chosen compacted
 * object's range are retired (the sweeper deletes them after the grace period); the others are
 * reported as orphans. A gap (offsets in no object) or objects that overlap so that no chain exists
 * are problems, each reported.
 *
 * <p>Stateless; {@link #of} is a pure function, so thread-safe.
 */
final class ObjectCover {
    /**
     * The choice for one partition.
     *
     * @param chain the objects to commit, in offset order
     * @param retired objects a chosen compacted object replaced
     * @param notes left out objects that are orphans, one line each
     * @param problems gaps and overlaps that no chain can avoid
     * @param cleanedOffset the end of the highest chosen compacted object (0 if none): the cold
     *     cleaned offset the rebuilt catalog records
     */
    record Result(
            List<BucketSurvey.Found> chain,
            List<BucketSurvey.Found> retired,
            List<String> notes,
            List<String> problems,
            long cleanedOffset) {}

    private ObjectCover() {}

    /** Chooses for {@code found}, ordered as {@link BucketSurvey#BY_RANGE_THEN_KEY}. */
    static Result of(TopicPartition tp, List<BucketSurvey.Found> found) {
        List<BucketSurvey.Found> chain = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        int from = 0;
        long reach = -1; // one past the highest offset of found[from..i)
        BucketSurvey.Found reachedBy = null;
        for (int i = 0; i <= found.size(); i++) {
            BucketSurvey.Found f = i < found.size() ? found.get(i) : null;
            if (f != null && (i == from || f.footer().firstOffset() <= reach)) {
                if (f.footer().lastOffset() + 1 > reach) {
                    reach = f.footer().lastOffset() + 1;
                    reachedBy = f;
                }
                continue;
            }
            // found[from..i) is a stretch without a gap: chain it.
            chainStretch(tp, found.subList(from, i), reach, chain, problems);
            if (f != null) {
                problems.add(
                        tp
                                + ": gap: offsets ["
                                + reach
                                + ", "
                                + f.footer().firstOffset()
                                + ") are in no object (between "
                                + reachedBy.key()
                                + " and "
                                + f.key()
                                + ")");
                from = i;
                reach = f.footer().lastOffset() + 1;
                reachedBy = f;
            }
        }
        return leftovers(found, chain, problems);
    }

    /** The best path from the stretch's first offset to {@code end}, appended to {@code chain}. */
    private static void chainStretch(
            TopicPartition tp,
            List<BucketSurvey.Found> stretch,
            long end,
            List<BucketSurvey.Found> chain,
            List<String> problems) {
        if (stretch.isEmpty()) {
            return;
        }
        Map<Long, List<BucketSurvey.Found>> starting = new HashMap<>();
        TreeSet<Long> positions = new TreeSet<>();
        for (BucketSurvey.Found f : stretch) {
            starting.computeIfAbsent(f.footer().firstOffset(), k -> new ArrayList<>()).add(f);
            positions.add(f.footer().firstOffset());
        }
        // best[pos]: the best path from pos to end, as {compacted offsets, objects} and its
        // first step; filled from the end down, so every step's target is known.
        Map<Long, long[]> score = new HashMap<>();
        Map<Long, BucketSurvey.Found> step = new HashMap<>();
        score.put(end, new long[] {0, 0});
        for (Long pos : positions.descendingSet()) {
            for (BucketSurvey.Found f : starting.get(pos)) { // by last offset, then key
                long[] rest = score.get(f.footer().lastOffset() + 1);
                if (rest == null) {
                    continue;
                }
                ObjectFooter o = f.footer();
                long compacted =
                        rest[0] + (o.compacted() ? o.lastOffset() - o.firstOffset() + 1 : 0);
                long[] mine = {compacted, rest[1] + 1};
                long[] best = score.get(pos);
                if (best == null
                        || mine[0] > best[0]
                        || (mine[0] == best[0] && mine[1] < best[1])) {
                    score.put(pos, mine);
                    step.put(pos, f);
                }
            }
        }
        long start = positions.first();
        if (!score.containsKey(start)) {
            problems.add(overlap(tp, stretch, starting, start));
            return;
        }
        for (long pos = start; pos < end; ) {
            BucketSurvey.Found f = step.get(pos);
            chain.add(f);
            pos = f.footer().lastOffset() + 1;
        }
    }

    /** Names where the chains from {@code start} stop: an object straddling the furthest end. */
    private static String overlap(
            TopicPartition tp,
            List<BucketSurvey.Found> stretch,
            Map<Long, List<BucketSurvey.Found>> starting,
            long start) {
        Set<Long> reached = new HashSet<>();
        TreeSet<Long> todo = new TreeSet<>(List.of(start));
        BucketSurvey.Found last = null;
        long furthest = start;
        while (!todo.isEmpty()) {
            long pos = todo.pollFirst();
            if (!reached.add(pos)) {
                continue;
            }
            for (BucketSurvey.Found f : starting.getOrDefault(pos, List.of())) {
                long next = f.footer().lastOffset() + 1;
                todo.add(next);
                if (next > furthest) {
                    furthest = next;
                    last = f;
                }
            }
        }
        for (BucketSurvey.Found f : stretch) {
            ObjectFooter o = f.footer();
            if (o.firstOffset() < furthest && o.lastOffset() >= furthest) {
                return tp
                        + ": partial overlap: "
                        + o.key()
                        + " (offsets "
                        + o.firstOffset()
                        + ".."
                        + o.lastOffset()
                        + ") overlaps "
                        + (last == null
                                ? "the objects before it"
                                : last.key()
                                        + " (offsets "
                                        + last.footer().firstOffset()
                                        + ".."
                                        + last.footer().lastOffset()
                                        + ")");
            }
        }
        return tp + ": no chain of objects covers offsets " + start + ".." + (furthest - 1);
    }

    private static Result leftovers(
            List<BucketSurvey.Found> found, List<BucketSurvey.Found> chain, List<String> problems) {
        Set<String> chosen = new HashSet<>();
        chain.forEach(f -> chosen.add(f.key()));
        List<BucketSurvey.Found> retired = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        long cleaned = 0;
        for (BucketSurvey.Found c : chain) {
            if (c.footer().compacted()) {
                cleaned = Math.max(cleaned, c.footer().lastOffset() + 1);
            }
        }
        for (BucketSurvey.Found f : found) {
            if (chosen.contains(f.key())) {
                continue;
            }
            ObjectFooter o = f.footer();
            BucketSurvey.Found within = null;
            BucketSurvey.Found same = null;
            for (BucketSurvey.Found c : chain) {
                ObjectFooter co = c.footer();
                if (co.firstOffset() <= o.firstOffset() && o.lastOffset() <= co.lastOffset()) {
                    if (co.compacted()) {
                        within = c;
                    } else if (co.firstOffset() == o.firstOffset()
                            && co.lastOffset() == o.lastOffset()) {
                        same = c;
                    }
                }
            }
            if (within != null) {
                retired.add(f);
            } else if (same != null) {
                notes.add(
                        "duplicate "
                                + o.key()
                                + " holds the same offsets as "
                                + same.key()
                                + " (kept); not in the catalog, an orphan for the sweeper");
            } else if (problems.isEmpty()) {
                notes.add(
                        "object "
                                + o.key()
                                + " (offsets "
                                + o.firstOffset()
                                + ".."
                                + o.lastOffset()
                                + ") overlaps the chosen chain; not in the catalog, an orphan"
                                + " for the sweeper");
            }
        }
        return new Result(chain, retired, notes, problems, cleaned);
    }
}
