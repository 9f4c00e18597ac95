package io.tierlog.itests.testing;

import io.tierlog.common.testing.Await;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
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
    private ServeProcess() {}

    /**
     * Starts {@code serve} on {@code 127.0.0.1:port} over {@code data}, its output in {@code log},
     * with {@code sets} as further {@code --set key=value} settings, and returns once it accepts
     * connections (failing the test, naming the log, if it does not within 90 s).
     */
    public static Process start(Path log, int port, Path data, String... sets) throws IOException {
        String javaExe = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                javaExe,
                                "-Xmx512m",
                                "-cp",
                                System.getProperty("java.class.path"),
                                "io.tierlog.server.cli.TierlogCli",
                                "serve",
                                "--set",
                                "listeners=PLAINTEXT://127.0.0.1:" + port,
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
        Await.until("server listening; log: " + log, () -> accepts(port), Duration.ofSeconds(90));
        return p;
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
