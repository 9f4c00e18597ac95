package io.tierlog.itests.testing;

import io.tierlog.common.testing.Await;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code tierlog serve} child JVM on this JVM's class path, for tests that kill the server with
 * SIGKILL ({@link Process#destroyForcibly()}) and start it again on the same data dir.
 *
 * <p>Thread-safety: stateless.
 */
public final class ServeProcess {
    /**
     * JVM flags that start {@code serve} in about half the time on a loaded machine (C1 only, the
     * serial collector), for tests that restart it many times and measure correctness, not speed.
     */
    public static final List<String> QUICK_START =
            List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    private ServeProcess() {}

    /**
     * Starts {@code serve} on {@code 127.0.0.1:port} over {@code data}, its output in {@code log},
     * with {@code sets} as further {@code --set key=value} settings, and returns once it accepts
     * connections (failing the test, naming the log, if it does not within 90 s, and at once with
     * the log's tail if the process exits).
     */
    public static Process start(Path log, int port, Path data, String... sets) throws IOException {
        return start(log, port, data, List.of(), sets);
    }

    /**
     * As {@link #start(Path, int, Path, String...)}, with further JVM flags such as {@link
     * #QUICK_START}.
     */
    public static Process start(
            Path log, int port, Path data, List<String> jvmFlags, String... sets)
            throws IOException {
        String javaExe = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(javaExe, "-Xmx512m"));
        cmd.addAll(jvmFlags);
        cmd.addAll(
                List.of(
                        "-cp",
                        System.getProperty("java.class.path"),
                        "io.tierlog.server.cli.TierlogCli",
                        "serve",
                        "--set",
                        "listeners=PLAINTEXT://127.0.0.1:" + port,
                        "--set",
                        "schema.registry.listen=",
                        "--set",
                        "data.dir=" + data));
        for (String set : sets) {
            cmd.add("--set");
            cmd.add(set);
        }
        Process p =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        Await.until(
                "server listening; log: " + log,
                () -> {
                    if (!p.isAlive()) {
                        throw new IOException(
                                "serve exited with " + p.exitValue() + ":\n" + tail(log));
                    }
                    return accepts(port);
                },
                Duration.ofSeconds(90));
        return p;
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }

    /** Whether something accepts TCP connections on {@code 127.0.0.1:port}. */
    public static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
