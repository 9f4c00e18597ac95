package io.tierlog.itests.faults;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the campaign's producer was told: for every partition, each acknowledged record's offset and
 * sequence number (from the {@code RecordMetadata} of an acks=all send), and the ranges that the
 * campaign itself tore away to simulate a power loss. The checker compares the log against it.
 *
 * <p>Record values encode {@code c<schedule seed>|p<partition>|n<sequence>|padding}, so a record
 * read back names the send it came from. Sequences are unique per partition and never resent by the
 * campaign (a failed send is dropped, not retried by hand), so each value may be in the log at most
 * once: any second copy is a duplicate the server made.
 *
 * <p>Thread-safe: acks arrive on the producer's I/O thread while the schedule reads.
 */
final class CampaignLedger {
    /** An offset acknowledged for two different sends: an offset assigned twice. */
    record DoubleAssignment(int partition, long offset, long firstSeq, long secondSeq) {}

    /** A range of one partition's offsets the simulation destroyed (bytes the campaign tore). */
    record TornRange(
            int partition, long fromOffset, long toOffset, long chosenAtNanos, long restartNanos) {}

    private final long seed;
    private final String prefix;
    private final int paddingBytes;
    private final Map<Integer, NavigableMap<Long, Long>> ackedByOffset = new ConcurrentHashMap<>();
    private final Map<Integer, Map<Long, Long>> ackedBySeq = new ConcurrentHashMap<>();
    private final Map<Integer, Map<Long, Long>> ackNanosBySeq = new ConcurrentHashMap<>();
    private final List<DoubleAssignment> doubles = new ArrayList<>();
    private final List<TornRange> torn = new ArrayList<>();
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();

    CampaignLedger(long seed, int paddingBytes) {
        this.seed = seed;
        this.prefix = "c" + Long.toHexString(seed) + "|p";
        this.paddingBytes = paddingBytes;
    }

    byte[] value(int partition, long seq) {
        String s = prefix + partition + "|n" + seq + "|";
        StringBuilder b = new StringBuilder(s);
        while (b.length() < s.length() + paddingBytes) {
            b.append((char) ('a' + (b.length() + seq) % 26));
        }
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** The (partition, sequence) a value of this schedule encodes; empty for anything else. */
    Optional<long[]> decode(byte[] value) {
        if (value == null) {
            return Optional.empty();
        }
        String s = new String(value, StandardCharsets.US_ASCII);
        if (!s.startsWith(prefix)) {
            return Optional.empty();
        }
        String[] parts = s.substring(prefix.length()).split("\\|");
        try {
            long p = Long.parseLong(parts[0]);
            long n = Long.parseLong(parts[1].substring(1));
            if (!java.util.Arrays.equals(value, value((int) p, n))) {
                return Optional.empty(); // right prefix, wrong bytes: reported by the checker
            }
            return Optional.of(new long[] {p, n});
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    void onAck(int partition, long offset, long seq) {
        long now = System.nanoTime();
        Long before = ackedByOffset(partition).putIfAbsent(offset, seq);
        if (before != null && before != seq) {
            synchronized (doubles) {
                doubles.add(new DoubleAssignment(partition, offset, before, seq));
            }
        }
        ackedBySeq.computeIfAbsent(partition, p -> new ConcurrentHashMap<>()).put(seq, offset);
        ackNanosBySeq.computeIfAbsent(partition, p -> new ConcurrentHashMap<>()).put(seq, now);
        acked.incrementAndGet();
    }

    void onFailure() {
        failed.incrementAndGet();
    }

    long ackedCount() {
        return acked.get();
    }

    long failedCount() {
        return failed.get();
    }

    /** The highest offset acknowledged so far in {@code partition}, or -1. */
    long highestAcked(int partition) {
        NavigableMap<Long, Long> m = ackedByOffset.get(partition);
        return m == null || m.isEmpty() ? -1 : m.lastKey();
    }

    /**
     * Records that the campaign tore the bytes of offsets {@code [fromOffset, toOffset]}, a range
     * chosen (at {@code chosenAtNanos}) above every offset acknowledged by then, while the server
     * was down; called just before the server is started again.
     */
    void tore(int partition, long fromOffset, long toOffset, long chosenAtNanos) {
        synchronized (torn) {
            torn.add(
                    new TornRange(
                            partition, fromOffset, toOffset, chosenAtNanos, System.nanoTime()));
        }
    }

    /**
     * Whether the simulation itself destroyed this acknowledged record: its offset is in a torn
     * range and its acknowledgement reached the producer after the range was chosen but before the
     * server was started again, so it came from the killed instance (a response in flight at the
     * kill). Acknowledgements from the restarted server are never excused: offsets it hands out
     * again inside a torn range must hold the records it acknowledged.
     */
    boolean destroyedBySimulation(int partition, long offset, long seq) {
        Long ackedAt = ackNanosBySeq.getOrDefault(partition, Map.of()).get(seq);
        synchronized (torn) {
            for (TornRange t : torn) {
                if (t.partition() == partition
                        && offset >= t.fromOffset()
                        && offset <= t.toOffset()
                        && ackedAt != null
                        && ackedAt >= t.chosenAtNanos()
                        && ackedAt <= t.restartNanos()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Acknowledged offset -> sequence of one partition (a live view). */
    NavigableMap<Long, Long> ackedByOffset(int partition) {
        return ackedByOffset.computeIfAbsent(partition, p -> new ConcurrentSkipListMap<>());
    }

    /** Sequence -> acknowledged offset of one partition (a copy). */
    Map<Long, Long> ackedSeqs(int partition) {
        return Map.copyOf(ackedBySeq.getOrDefault(partition, Map.of()));
    }

    /** The offset a sequence was acknowledged at, if it was. */
    Optional<Long> ackedOffset(int partition, long seq) {
        return Optional.ofNullable(ackedBySeq.getOrDefault(partition, Map.of()).get(seq));
    }

    List<DoubleAssignment> doubleAssignments() {
        synchronized (doubles) {
            return List.copyOf(doubles);
        }
    }

    List<TornRange> tornRanges() {
        synchronized (torn) {
            return List.copyOf(torn);
        }
    }

    long seed() {
        return seed;
    }
}
