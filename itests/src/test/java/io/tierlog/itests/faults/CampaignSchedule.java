package io.tierlog.itests.faults;

import io.tierlog.common.testing.Property;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * One seeded schedule of the fault campaign: the server's settings (offload in the server or in a
 * separate {@code tierlog offload} daemon, segment size, local retention, durability, partitions)
 * and a sequence of faults with their durations, all drawn from one seed, so that the seed alone
 * reproduces the schedule. (Timing against the running server is not reproducible to the
 * millisecond, so a replay repeats the same faults in the same order, not the same interleaving.)
 * Immutable.
 */
record CampaignSchedule(
        long seed,
        boolean daemonOffload,
        int partitions,
        int segmentBytes,
        long localRetentionBytes,
        boolean fsync,
        int paddingBytes,
        int recordsPerSecond,
        List<Fault> faults,
        int indexIntervalBytes) {

    /** The kinds of fault a schedule mixes. */
    enum Kind {
        /** SIGKILL of the server, restarted after a pause. */
        KILL_SERVER,
        /** SIGKILL of the server, a torn tail on a partition's segments, unclean restart. */
        TORN_TAIL,
        /** SIGKILL of the offload daemon, restarted after a pause (daemon schedules only). */
        KILL_DAEMON,
        /** The S3 endpoint refuses connections. */
        S3_DOWN,
        /** Every S3 response is held back (hundreds of ms to seconds). */
        S3_SLOW,
        /** S3 accepts connections and never answers. */
        S3_HANG,
        /** S3 answers 500 / 503 to some or all requests. */
        S3_5XX,
        /** The SQLite catalog is held under an exclusive lock by another connection. */
        CATALOG_LOCK,
        /** The data dir's file system is full. */
        DISK_FULL
    }

    /**
     * One fault: its kind, how long it lasts (or the pause before a restart) and a parameter (S3
     * delay in ms, 5xx status and period, tear variant).
     */
    record Fault(Kind kind, int durationMs, int param, long seed) {
        @Override
        public String toString() {
            String p =
                    switch (kind) {
                        case S3_SLOW -> " delay=" + param + "ms";
                        case S3_5XX -> param == 0 ? " all 503" : " every " + param + "th 500";
                        case TORN_TAIL -> param == 0 ? " active" : " offloaded";
                        default -> "";
                    };
            return kind + "(" + durationMs + "ms" + p + ")";
        }
    }

    static CampaignSchedule draw(long seed) {
        Random r = new Random(seed);
        boolean daemon = r.nextInt(3) == 0;
        int partitions = Property.between(r, 1, 3);
        int segment = Property.between(r, 16, 64) << 10;
        long localRetention = (long) segment * Property.between(r, 1, 3);
        boolean fsync = r.nextInt(3) == 0;
        int padding = Property.between(r, 40, 200);
        int rate = Property.between(r, 1200, 2500);
        int n = Property.between(r, 3, 5);
        List<Fault> faults = new ArrayList<>();
        Kind[] kinds = Kind.values();
        while (faults.size() < n) {
            Kind k = kinds[r.nextInt(kinds.length)];
            if (k == Kind.KILL_DAEMON && !daemon) {
                continue;
            }
            int duration = Property.between(r, 200, 2500);
            int param =
                    switch (k) {
                        case S3_SLOW -> Property.between(r, 200, 2000);
                        case S3_5XX -> r.nextBoolean() ? 0 : Property.between(r, 2, 4);
                        case TORN_TAIL -> r.nextInt(2);
                        default -> 0;
                    };
            faults.add(new Fault(k, duration, param, r.nextLong()));
        }
        // Drawn last, so that the draws above (and the schedules of seeds already reported)
        // stay as they were. Small intervals: index pages fill, and need new pages, more often.
        int indexInterval = r.nextBoolean() ? 4096 : 512;
        return new CampaignSchedule(
                seed,
                daemon,
                partitions,
                segment,
                localRetention,
                fsync,
                padding,
                rate,
                List.copyOf(faults),
                indexInterval);
    }

    String describe() {
        return (daemonOffload ? "daemon-offload" : "server-offload")
                + " partitions="
                + partitions
                + " segment.bytes="
                + segmentBytes
                + " local.retention.bytes="
                + localRetentionBytes
                + " log.durability="
                + (fsync ? "fsync" : "page_cache")
                + " index.interval.bytes="
                + indexIntervalBytes
                + " faults="
                + faults;
    }
}
