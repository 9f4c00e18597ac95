package io.tierlog.server.group.consumer;

import io.tierlog.common.Time;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The deadlines of consumer-group members, on the injected {@link Time} and timer: a member not
 * heard from for the session timeout, or asked to revoke partitions that it has not revoked within
 * its rebalance timeout, is handed to {@code fence} (which removes it) under its group's monitor. A
 * task that runs early by the clock is rescheduled for the time left. Thread-safe: each task takes
 * its group's monitor; the schedule methods are called under it.
 */
final class MemberDeadlines {
    private static final Logger LOG = LoggerFactory.getLogger(MemberDeadlines.class);

    private final ScheduledExecutorService timer;
    private final Time time;
    private final int sessionTimeoutMs;
    private final BiConsumer<ConsumerGroup, ConsumerGroupMember> fence;

    MemberDeadlines(
            ScheduledExecutorService timer,
            Time time,
            int sessionTimeoutMs,
            BiConsumer<ConsumerGroup, ConsumerGroupMember> fence) {
        this.timer = timer;
        this.time = time;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.fence = fence;
    }

    /** The member must revoke within its rebalance timeout. Under {@code g}'s monitor. */
    void scheduleRevocationDeadline(ConsumerGroup g, ConsumerGroupMember m) {
        if (m.revocation != null) {
            m.revocation.cancel(false);
        }
        long deadline = time.milliseconds() + m.rebalanceTimeoutMs;
        int epoch = m.epoch;
        m.revocation =
                timer.schedule(
                        () -> onRevocationDeadline(g, m, epoch, deadline),
                        m.rebalanceTimeoutMs,
                        TimeUnit.MILLISECONDS);
    }

    private void onRevocationDeadline(
            ConsumerGroup g, ConsumerGroupMember m, int epoch, long deadline) {
        synchronized (g) {
            if (g.members.get(m.id) != m
                    || m.state != MemberState.UNREVOKED_PARTITIONS
                    || m.epoch != epoch) {
                return;
            }
            long left = deadline - time.milliseconds();
            if (left > 0) {
                m.revocation =
                        timer.schedule(
                                () -> onRevocationDeadline(g, m, epoch, deadline),
                                left,
                                TimeUnit.MILLISECONDS);
                return;
            }
            LOG.info(
                    "Member {} of consumer group {} did not revoke its partitions within {} ms: fenced",
                    m.id,
                    g.id,
                    m.rebalanceTimeoutMs);
            fence.accept(g, m);
        }
    }

    /** The member was heard from: its session restarts. Called under {@code g}'s monitor. */
    void touch(ConsumerGroup g, ConsumerGroupMember m) {
        m.lastSeenMs = time.milliseconds();
        if (m.session != null) {
            m.session.cancel(false);
        }
        m.session =
                timer.schedule(
                        () -> maybeExpire(g, m), sessionTimeoutMs + 1L, TimeUnit.MILLISECONDS);
    }

    private void maybeExpire(ConsumerGroup g, ConsumerGroupMember m) {
        synchronized (g) {
            if (g.members.get(m.id) != m) {
                return;
            }
            long silent = time.milliseconds() - m.lastSeenMs;
            if (silent <= sessionTimeoutMs) {
                // Early by the clock: check again when it is due.
                m.session =
                        timer.schedule(
                                () -> maybeExpire(g, m),
                                sessionTimeoutMs + 1L - silent,
                                TimeUnit.MILLISECONDS);
                return;
            }
            LOG.info(
                    "Member {} of consumer group {} expired after {} ms without a heartbeat",
                    m.id,
                    g.id,
                    silent);
            fence.accept(g, m);
        }
    }
}
