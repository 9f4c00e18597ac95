package io.tierlog.bench.sidebyside;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.Uuid;

/**
 * Apache Kafka 4.4.0 (KRaft, combined broker + controller, one node) as a child JVM on free
 * loopback ports, with the JVM options of Kafka's own start script ({@code -Xmx1G -Xms1G}, G1 with
 * 20 ms pause target) and Kafka's default log settings (page cache only, no fsync per message).
 *
 * <p>Stateless: {@link #start} launches the process and hands it to {@link ChildServer}.
 */
final class KafkaServer {
    private KafkaServer() {}

    static ServerUnderTest start(Path dir) throws IOException {
        return start(dir, java.util.Map.of());
    }

    /**
     * As {@link #start(Path)}, with {@code extra} broker settings appended; a {@code dir} formatted
     * by an earlier start is started again on its data (the format step is skipped).
     */
    static ServerUnderTest start(Path dir, java.util.Map<String, String> extra) throws IOException {
        Files.createDirectories(dir);
        int port = Children.freePort();
        int controllerPort = Children.freePort();
        Path logDir = dir.resolve("kafka-logs");
        String config =
                String.join(
                        "\n",
                        "process.roles=broker,controller",
                        "node.id=1",
                        "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                        "listeners=PLAINTEXT://127.0.0.1:"
                                + port
                                + ",CONTROLLER://127.0.0.1:"
                                + controllerPort,
                        "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                        "controller.listener.names=CONTROLLER",
                        "inter.broker.listener.name=PLAINTEXT",
                        "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
                        "log.dirs=" + logDir.toAbsolutePath(),
                        "num.partitions=1",
                        "offsets.topic.replication.factor=1",
                        "offsets.topic.num.partitions=1",
                        "transaction.state.log.replication.factor=1",
                        "transaction.state.log.min.isr=1",
                        "share.coordinator.state.topic.replication.factor=1",
                        "share.coordinator.state.topic.min.isr=1",
                        "group.initial.rebalance.delay.ms=0",
                        "");
        StringBuilder more = new StringBuilder();
        extra.forEach((k, v) -> more.append(k).append('=').append(v).append('\n'));
        config += more;
        Path props = dir.resolve("server.properties");
        Files.writeString(props, config);
        Path out = dir.resolve("kafka.out");
        int rc =
                Files.exists(logDir.resolve("meta.properties"))
                        ? 0
                        : Children.run(
                                Children.java(
                                        List.of("-Xmx512m"),
                                        List.of(
                                                "kafka.tools.StorageTool",
                                                "format",
                                                "--cluster-id",
                                                Uuid.randomUuid().toString(),
                                                "--config",
                                                props.toString()),
                                        out),
                                Duration.ofMinutes(2));
        if (rc != 0) {
            throw new IOException("StorageTool format failed:\n" + Children.tail(out));
        }
        Process p =
                Children.java(
                                List.of(
                                        "-Xmx1G",
                                        "-Xms1G",
                                        "-XX:+UseG1GC",
                                        "-XX:MaxGCPauseMillis=20",
                                        "-XX:InitiatingHeapOccupancyPercent=35",
                                        "-XX:+ExplicitGCInvokesConcurrent",
                                        "-Djava.awt.headless=true"),
                                List.of("kafka.Kafka", props.toString()),
                                out)
                        .start();
        return ChildServer.awaitStarted("kafka", p, port, out, Duration.ofMinutes(2));
    }
}
