package io.tierlog.itests.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Await;
import io.tierlog.engine.PartitionReport;
import io.tierlog.engine.TieredLog;
import io.tierlog.server.TierlogServer;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * The waits that end-to-end tests of a tiered server share, on top of {@link Await}: until the
 * server's own offload and retention threads have moved a topic to the cold tier, and until a
 * consumer has read a range of offsets in order. Thread-safe: stateless; each call polls on the
 * caller's thread.
 */
public final class TieredWaits {
    private TieredWaits() {}

    /**
     * Waits until partition 0 of {@code topic} has no offload lag and at most {@code
     * hotBytesAtMost} bytes in the hot tier (local retention ran); returns its report.
     */
    public static PartitionReport awaitOffloaded(
            TierlogServer server, String topic, long hotBytesAtMost, Duration timeout) {
        TieredLog tiered = server.engine();
        return Await.until(
                "no offload lag and at most " + hotBytesAtMost + " hot bytes in " + topic,
                () -> tiered.inspect(Optional.of(topic)).get(0),
                r -> r.offloadLagOffsets() == 0 && r.hotBytes() <= hotBytesAtMost,
                timeout);
    }

    /**
     * Polls {@code consumer} until {@code done} holds, handing every record to {@code each} (which
     * may assert, collect and count).
     *
     * @throws AssertionError on the timeout, naming {@code what}
     */
    public static void pollUntil(
            KafkaConsumer<byte[], byte[]> consumer,
            String what,
            BooleanSupplier done,
            Duration timeout,
            Consumer<ConsumerRecord<byte[], byte[]>> each) {
        Await.until(
                what,
                () -> {
                    if (!done.getAsBoolean()) {
                        consumer.poll(Duration.ofMillis(200)).forEach(each);
                    }
                    return done.getAsBoolean();
                },
                timeout);
    }

    /**
     * Polls {@code consumer} until its position reaches {@code until}, each record the next offset
     * from {@code next} (no gap, no duplicate) and accepted by {@code check}; returns the position
     * reached (at least {@code until}: the last poll may return more).
     *
     * @throws AssertionError on a gap, a duplicate, a failed check or the timeout
     */
    public static long readInOrder(
            KafkaConsumer<byte[], byte[]> consumer,
            long next,
            long until,
            Duration timeout,
            Consumer<ConsumerRecord<byte[], byte[]>> check) {
        long[] position = {next};
        Await.until(
                "offsets " + next + ".." + (until - 1) + " read in order",
                () -> {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                        assertThat(r.offset()).as("no gap, no duplicate").isEqualTo(position[0]);
                        check.accept(r);
                        position[0]++;
                    }
                    return "next offset " + position[0];
                },
                s -> position[0] >= until,
                timeout);
        return position[0];
    }
}
