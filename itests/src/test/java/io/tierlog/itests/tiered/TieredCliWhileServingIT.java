package io.tierlog.itests.tiered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.Config;
import io.tierlog.common.testing.Await;
import io.tierlog.engine.TieredLog;
import io.tierlog.itests.testing.TieredServers;
import io.tierlog.server.TierlogServer;
import io.tierlog.server.cli.TierlogCli;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tierlog inspect} and {@code tierlog verify} against the data dir of a running server (the
 * embedded S3 store, as {@code serve} uses by default): both succeed and leave no clean-shutdown
 * marker behind, so a crash of the server afterwards is still recovered; a second server on the
 * same data dir is refused by the log dir's lock.
 */
class TieredCliWhileServingIT {
    private static final String TOPIC = "served";

    @TempDir Path dir;

    private Map<String, String> settings() {
        Map<String, String> s = TieredServers.settings(dir.resolve("data"), 0, 64 << 10);
        s.put("num.network.threads", "1");
        s.put("offload.target.object.bytes", Integer.toString(128 << 10));
        return s;
    }

    @Test
    void inspectAndVerifyRunAgainstARunningServerWithoutMarkingItsLogDirClean() throws Exception {
        Path logDir = dir.resolve("data/log");
        String dataDir = "data.dir=" + dir.resolve("data");
        try (TierlogServer server = TierlogServer.start(Config.of(settings()))) {
            produce("127.0.0.1:" + server.port(), 20_000);
            TieredLog tiered = server.engine();
            Await.until(
                    "two cold objects and no offload lag",
                    () -> tiered.inspect(Optional.of(TOPIC)).get(0),
                    r -> r.coldObjects() >= 2 && r.offloadLagOffsets() == 0,
                    Duration.ofMinutes(2));

            Cli inspect = Cli.run("inspect", "--set", dataDir);
            assertThat(inspect.exit).as(inspect.out).isZero();
            assertThat(inspect.out).contains(TOPIC + "-0");
            Cli verify = Cli.run("verify", "--deep", "--set", dataDir);
            assertThat(verify.exit).as(verify.out).isZero();
            assertThat(verify.out).contains("verify: OK");
            assertThat(logDir.resolve(".kafka_cleanshutdown")).doesNotExist();

            assertThatThrownBy(() -> TierlogServer.start(Config.of(settings())).close())
                    .hasMessageContaining("is in use by another process (lock held on")
                    .hasMessageContaining(logDir.resolve(".lock").toString());
            assertThat(logDir.resolve(".kafka_cleanshutdown")).doesNotExist();
        }
        assertThat(logDir.resolve(".kafka_cleanshutdown")).exists();
    }

    /** One CLI run with its standard output. */
    private record Cli(int exit, String out) {
        static synchronized Cli run(String... args) {
            PrintStream old = System.out;
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            try (PrintStream ps = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
                System.setOut(ps);
                int exit = TierlogCli.commandLine().execute(args);
                return new Cli(exit, buf.toString(StandardCharsets.UTF_8));
            } finally {
                System.setOut(old);
            }
        }
    }

    private static void produce(String bootstrap, int n) throws IOException {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < n; i++) {
                producer.send(
                        new ProducerRecord<>(
                                TOPIC,
                                0,
                                ("k" + i).getBytes(StandardCharsets.UTF_8),
                                ("value-" + i + "-" + "x".repeat(40))
                                        .getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
    }
}
