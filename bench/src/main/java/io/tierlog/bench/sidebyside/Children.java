package io.tierlog.bench.sidebyside;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * Helpers for the harness's child processes: JVMs on this JVM's class path, free loopback ports,
 * waiting for a Kafka-protocol server to answer, stopping with SIGTERM.
 *
 * <p>Thread-safety: stateless, thread-safe.
 */
final class Children {
    private Children() {}

    /** A child JVM on this JVM's class path running {@code mainAndArgs}, output to {@code out}. */
    static ProcessBuilder java(List<String> jvmArgs, List<String> mainAndArgs, Path out) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.addAll(mainAndArgs);
        return new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()));
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Runs a process to completion (bounded by {@code timeout}) and returns its exit code. */
    static int run(ProcessBuilder pb, Duration timeout) throws IOException {
        Process p = pb.start();
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException(pb.command() + " did not finish within " + timeout);
            }
            return p.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted", e);
        }
    }

    /** Polls with Metadata requests until the server lists topics, or fails at the deadline. */
    static void awaitAnswering(Process process, String bootstrap, Path out, Duration timeout)
            throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "2000");
        props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
        try (Admin admin = Admin.create(props)) {
            while (true) {
                if (!process.isAlive()) {
                    throw new IOException(
                            "server exited with " + process.exitValue() + ":\n" + tail(out));
                }
                try {
                    admin.listTopics().names().get(3, TimeUnit.SECONDS);
                    return;
                } catch (ExecutionException | TimeoutException e) {
                    // not answering yet
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException(
                            "server did not answer within " + timeout + ":\n" + tail(out));
                }
            }
        }
    }

    /** SIGTERM, wait up to a minute, then SIGKILL. */
    static void stop(Process process) throws IOException {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IOException("interrupted", e);
        }
    }

    static String tail(Path file) throws IOException {
        if (!Files.exists(file)) {
            return "(no output)";
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }
}
