package io.tierlog.itests.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * An Apache Kafka 4.4.0 broker (KRaft, combined broker + controller, single node) running as a
 * child JVM on free loopback ports, from the Maven Central jars on this JVM's class path.
 *
 * <p>{@link #start(Path)} formats {@code dir/kafka-logs} with {@code kafka.tools.StorageTool
 * format} (skipped when the directory is already formatted, so a stopped broker can be started
 * again on the same data) and runs {@code kafka.Kafka dir/server.properties}; it returns once the
 * broker answers a {@code DescribeCluster} request. The child's output goes to {@code
 * dir/broker.out}. {@link #stop()} sends SIGTERM and waits for Kafka's controlled shutdown, so the
 * log directory is left cleanly closed (indexes trimmed, clean-shutdown marker written).
 *
 * <p>System properties: {@code tierlog.kafka.heap} (child {@code -Xmx}, default {@code 768m}),
 * {@code tierlog.kafka.startTimeoutSeconds} (default 120).
 *
 * <p>Thread-safety: not thread-safe; one test thread starts and stops a broker.
 */
public final class KafkaBroker implements AutoCloseable {
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

    private final Path dir;
    private final Path logDir;
    private final Process process;
    private final String bootstrapServers;

    private KafkaBroker(Path dir, Path logDir, Process process, String bootstrapServers) {
        this.dir = dir;
        this.logDir = logDir;
        this.process = process;
        this.bootstrapServers = bootstrapServers;
    }

    /** Starts a broker with default settings; see {@link #start(Path, Map)}. */
    public static KafkaBroker start(Path dir) throws IOException {
        return start(dir, Map.of());
    }

    /**
     * Formats (unless already formatted) and starts a broker whose files live under {@code dir}.
     *
     * @param overrides broker settings added to (or replacing) the defaults in {@code
     *     server.properties}, e.g. {@code log.segment.bytes}
     * @throws IOException if the broker does not come up; the message holds the tail of its output
     */
    public static KafkaBroker start(Path dir, Map<String, String> overrides) throws IOException {
        return start(dir, overrides, List.of());
    }

    /**
     * As {@link #start(Path, Map)}, with further {@code kafka-storage format} arguments for a fresh
     * directory, e.g. {@code --feature transaction.version=1} (a freshly formatted 4.4 broker
     * finalizes transaction.version 2).
     */
    public static KafkaBroker start(
            Path dir, Map<String, String> overrides, List<String> formatArgs) throws IOException {
        return start(dir, overrides, formatArgs, freePort(), freePort());
    }

    /**
     * As {@link #start(Path, Map, List)} on given loopback ports, so that a broker started again on
     * the same data (after a kill) is where it was: clients and its own coordinators find it at the
     * address its metadata held before.
     */
    public static KafkaBroker start(
            Path dir,
            Map<String, String> overrides,
            List<String> formatArgs,
            int brokerPort,
            int controllerPort)
            throws IOException {
        Files.createDirectories(dir);
        Path logDir = dir.resolve("kafka-logs");
        Map<String, String> props = new LinkedHashMap<>();
        props.put("process.roles", "broker,controller");
        props.put("node.id", "1");
        props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        props.put(
                "listeners",
                "PLAINTEXT://127.0.0.1:"
                        + brokerPort
                        + ",CONTROLLER://127.0.0.1:"
                        + controllerPort);
        props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("inter.broker.listener.name", "PLAINTEXT");
        props.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
        props.put("log.dirs", logDir.toAbsolutePath().toString());
        props.put("num.partitions", "1");
        props.put("offsets.topic.replication.factor", "1");
        props.put("offsets.topic.num.partitions", "1");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("share.coordinator.state.topic.replication.factor", "1");
        props.put("share.coordinator.state.topic.min.isr", "1");
        props.put("group.initial.rebalance.delay.ms", "0");
        props.put("auto.create.topics.enable", "true");
        props.putAll(overrides);
        Path config = dir.resolve("server.properties");
        StringBuilder text = new StringBuilder();
        props.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        Files.writeString(config, text.toString());

        Path out = dir.resolve("broker.out");
        if (!Files.exists(logDir.resolve("meta.properties"))) {
            List<String> formatCmd =
                    new ArrayList<>(
                            List.of(
                                    "kafka.tools.StorageTool",
                                    "format",
                                    "--cluster-id",
                                    Uuid.randomUuid().toString(),
                                    "--config",
                                    config.toString()));
            formatCmd.addAll(formatArgs);
            Process format = javaProcess(formatCmd, dir.resolve("format.out")).start();
            int rc = waitFor(format, Duration.ofSeconds(120));
            if (rc != 0) {
                throw new IOException(
                        "kafka.tools.StorageTool format exited with "
                                + rc
                                + ":\n"
                                + tail(dir.resolve("format.out")));
            }
        }
        Process process = javaProcess(List.of("kafka.Kafka", config.toString()), out).start();
        KafkaBroker broker = new KafkaBroker(dir, logDir, process, "127.0.0.1:" + brokerPort);
        try {
            broker.awaitReady(
                    Duration.ofSeconds(Long.getLong("tierlog.kafka.startTimeoutSeconds", 120)));
        } catch (IOException | RuntimeException e) {
            process.destroyForcibly();
            throw e;
        }
        return broker;
    }

    /** {@code host:port} of the PLAINTEXT listener, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The broker's {@code log.dirs}: one {@code <topic>-<partition>} folder per partition. */
    public Path logDir() {
        return logDir;
    }

    /** Process id of the broker JVM (for CPU sampling from {@code /proc/<pid>/stat}). */
    public long pid() {
        return process.pid();
    }

    /**
     * Stops the broker gracefully (SIGTERM, Kafka's controlled shutdown) and waits for it to exit;
     * kills it only if it has not exited within a minute. Idempotent.
     */
    public void stop() throws IOException {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor();
                throw new IOException(
                        "Kafka broker did not stop within " + STOP_TIMEOUT + ", killed it");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IOException("interrupted while stopping the Kafka broker", e);
        }
    }

    @Override
    public void close() throws IOException {
        stop();
    }

    private void awaitReady(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Properties adminProps = new Properties();
        adminProps.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        adminProps.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
        adminProps.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "2000");
        adminProps.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
        try (Admin admin = Admin.create(adminProps)) {
            while (true) {
                if (!process.isAlive()) {
                    throw new IOException(
                            "Kafka broker exited with "
                                    + process.exitValue()
                                    + " during startup:\n"
                                    + tail(dir.resolve("broker.out")));
                }
                try {
                    if (!admin.describeCluster().nodes().get(3, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    // not up yet: retry until the deadline
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while waiting for the Kafka broker", e);
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException(
                            "Kafka broker did not answer within "
                                    + timeout
                                    + ":\n"
                                    + tail(dir.resolve("broker.out")));
                }
            }
        }
    }

    /**
     * A child JVM on this JVM's class path running {@code mainAndArgs}, output to {@code out}. Used
     * for the broker and for Kafka's command-line tools.
     */
    public static ProcessBuilder javaProcess(List<String> mainAndArgs, Path out) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx" + System.getProperty("tierlog.kafka.heap", "768m"));
        cmd.add("-XX:+UseG1GC");
        cmd.add("-Djava.awt.headless=true");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.addAll(mainAndArgs);
        return new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()));
    }

    private static int waitFor(Process p, Duration timeout) throws IOException {
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException("child JVM did not finish within " + timeout);
            }
            return p.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted", e);
        }
    }

    /** A loopback port free now. */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static String tail(Path file) {
        try {
            if (!Files.exists(file)) {
                return "(no output)";
            }
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
