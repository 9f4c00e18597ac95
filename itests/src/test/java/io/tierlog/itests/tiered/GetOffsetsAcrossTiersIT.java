package io.tierlog.itests.tiered;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import io.tierlog.engine.LogOffsets;
import io.tierlog.itests.testing.KafkaCli;
import io.tierlog.itests.testing.KafkaCli.Run;
import io.tierlog.itests.testing.TieredServers;
import io.tierlog.itests.testing.TieredWaits;
import io.tierlog.server.TierlogServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka 4.4's {@code kafka-get-offsets} against a topic with data in both tiers: {@code --time -1
 * -2 -3 -4 -5 -6} and by timestamp (in the cold and in the hot range), each answer checked against
 * the offsets the engine itself reports (cold log start, hot log start, last offloaded offset), and
 * an unparsable {@code --time} and a missing topic exiting non-zero.
 */
class GetOffsetsAcrossTiersIT {
    private static final String TOPIC = "offsets";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final int SEGMENT_BYTES = 64 << 10;
    private static final int RECORDS = 6_000;

    @TempDir Path dir;

    private static byte[] value(long i) {
        return ("value-" + i + "-" + "x".repeat(60)).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void everySpecialTimeAndTimestampsInBothTiersMatchWhatTheEngineKnows() throws Exception {
        Map<String, String> s = TieredServers.settings(dir.resolve("data"), 0, SEGMENT_BYTES);
        s.put("local.retention.bytes", Integer.toString(2 * SEGMENT_BYTES));
        s.put("offload.target.object.bytes", Integer.toString(SEGMENT_BYTES));
        TierlogServer server = TierlogServer.start(Config.of(s));
        try {
            String bootstrap = "127.0.0.1:" + server.port();
            TieredServers.produce(bootstrap, TOPIC, 0, RECORDS, GetOffsetsAcrossTiersIT::value);
            TieredWaits.awaitOffloaded(server, TOPIC, 3L * SEGMENT_BYTES, Duration.ofMinutes(2));
            LogOffsets o = server.engine().offsets(TP);
            assertThat(o.coldHighWatermark()).as("something offloaded").isPositive();
            assertThat(o.hotLogStartOffset()).as("local retention ran").isPositive();
            assertThat(o.coldHighWatermark()).isLessThan(RECORDS);

            assertThat(offset(bootstrap, "-1")).isEqualTo(RECORDS);
            assertThat(offset(bootstrap, "-2")).isZero();
            assertThat(offset(bootstrap, "-3"))
                    .as("max timestamp: the last record")
                    .isEqualTo(RECORDS - 1);
            assertThat(offset(bootstrap, "-4")).isEqualTo(o.hotLogStartOffset());
            assertThat(offset(bootstrap, "-5")).isEqualTo(o.coldHighWatermark() - 1);
            assertThat(offset(bootstrap, "-6")).isEqualTo(o.coldHighWatermark());
            assertThat(offset(bootstrap, "latest-tiered")).isEqualTo(o.coldHighWatermark() - 1);

            long inCold = o.hotLogStartOffset() / 2;
            long inHot = (o.hotLogStartOffset() + RECORDS) / 2;
            assertThat(offset(bootstrap, Long.toString(TieredServers.BASE_TS + inCold)))
                    .isEqualTo(inCold);
            assertThat(offset(bootstrap, Long.toString(TieredServers.BASE_TS + inHot)))
                    .isEqualTo(inHot);
            assertThat(server.engine().offsets(TP)).as("nothing moved meanwhile").isEqualTo(o);

            assertThat(offset(bootstrap, "-9"))
                    .as("another negative time searches by time, as Kafka: the first record")
                    .isZero();
            Run bad = getOffsets(bootstrap, "--topic", TOPIC, "--time", "yesterday");
            assertThat(bad.exit()).isNotZero();
            Run missing = getOffsets(bootstrap, "--topic", "no-such-topic", "--time", "-1");
            assertThat(missing.exit()).as(missing.out()).isNotZero();
        } finally {
            server.close();
        }
    }

    private Run getOffsets(String bootstrap, String... args) throws Exception {
        String[] all = new String[args.length + 2];
        all[0] = "--bootstrap-server";
        all[1] = bootstrap;
        System.arraycopy(args, 0, all, 2, args.length);
        return KafkaCli.run(dir, KafkaCli.GET_OFFSETS, all);
    }

    /** The offset {@code kafka-get-offsets --time time} prints for partition 0 (exit code 0). */
    private long offset(String bootstrap, String time) throws Exception {
        Run r = getOffsets(bootstrap, "--topic", TOPIC, "--time", time);
        assertThat(r.exit()).as(r.out()).isZero();
        String line =
                r.out()
                        .lines()
                        .filter(l -> l.startsWith(TOPIC + ":0:"))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("no offset line in " + r.out()));
        String v = line.substring((TOPIC + ":0:").length()).trim();
        return v.isEmpty() ? Long.MIN_VALUE : Long.parseLong(v);
    }
}
