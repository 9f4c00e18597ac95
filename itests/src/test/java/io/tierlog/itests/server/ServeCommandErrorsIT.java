package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tierlog serve} failing as a newcomer meets it, as its own process: a data dir another
 * server holds fails at once, before the embedded S3 server, the metrics endpoint or the catalog
 * start, having changed no file; a listener port in use is one line. Each error is one line on
 * stderr ({@code tierlog serve: ...}) with exit code 3, and the stack trace only with {@code
 * --verbose}.
 */
class ServeCommandErrorsIT {
    /** A line of slf4j-simple's log format (server/src/main/resources/simplelogger.properties). */
    private static final Pattern LOG_LINE =
            Pattern.compile("^\\d{4}-\\d\\d-\\d\\dT\\S+ \\[[^\\]]+\\] (TRACE|DEBUG|INFO|WARN) .*");

    @TempDir Path dir;

    /** A finished CLI process: exit code and the stderr lines that are not INFO/WARN logging. */
    record Exited(int exit, List<String> errors, String stderr) {}

    private Exited serve(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("io.tierlog.server.cli.TierlogCli");
        cmd.add("serve");
        cmd.addAll(List.of(args));
        Path err = dir.resolve("stderr-" + System.nanoTime());
        Process p =
                new ProcessBuilder(cmd)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(err.toFile())
                        .start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError(
                    "serve did not exit (it should have failed): " + Files.readString(err));
        }
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        List<String> errors =
                stderr.lines().filter(l -> !l.isBlank() && !LOG_LINE.matcher(l).matches()).toList();
        return new Exited(p.exitValue(), errors, stderr);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The paths under {@code root}, without the holder's transient checkpoint temp files (its
     * housekeeping rewrites checkpoints through {@code .tmp} files while the test runs).
     */
    private static Set<String> files(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.map(p -> root.relativize(p).toString())
                    .filter(n -> !n.endsWith(".tmp"))
                    .collect(TreeSet::new, Set::add, Set::addAll);
        }
    }

    @Test
    void aSecondServeOnALockedDataDirFailsAtOnceHavingStartedNothing() throws Exception {
        Path data = dir.resolve("data");
        // The holder serves the hot tier only (with the catalog, which holds the topics), so
        // no data/s3 exists yet. The second serve asks for it, and a metrics endpoint.
        try (ServerHarness holder = new ServerHarness(data, Map.of("tiered.enabled", "false"))) {
            Set<String> before = files(data);
            assertThat(before).contains("log/.lock", "catalog.db").doesNotContain("s3");
            int metrics = freePort();
            int listener = freePort();
            Exited second =
                    serve(
                            "--set",
                            "data.dir=" + data,
                            "--set",
                            "listeners=PLAINTEXT://127.0.0.1:" + listener,
                            "--set",
                            "schema.registry.listen=",
                            "--set",
                            "metrics.listen=127.0.0.1:" + metrics);
            assertThat(second.exit()).as(second.stderr()).isEqualTo(3);
            assertThat(second.errors())
                    .as(second.stderr())
                    .containsExactly(
                            "tierlog serve: log dir "
                                    + data.resolve("log")
                                    + " is in use by another process (lock held on "
                                    + data.resolve("log/.lock")
                                    + ")");
            // nothing started: no S3 server dir, no catalog, no metrics endpoint, no listener
            assertThat(second.stderr())
                    .doesNotContain("embedded S3", "metrics on", "catalog", "listening");
            assertThat(files(data)).isEqualTo(before);
            assertThat(bindable(metrics)).as("metrics port free").isTrue();
            assertThat(bindable(listener)).as("listener port free").isTrue();

            Exited verbose = serve("--verbose", "--set", "data.dir=" + data);
            assertThat(verbose.exit()).isEqualTo(3);
            assertThat(verbose.errors().get(0)).startsWith("tierlog serve: log dir ");
            assertThat(verbose.stderr()).contains("DirLock$InUseException", "\tat ");
            assertThat(holder.server().port()).isPositive();
        }
    }

    @Test
    void aListenerPortInUseIsOneLineAndExit3BeforeStorageIsOpened() throws Exception {
        Path data = dir.resolve("data");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Exited r =
                    serve(
                            "--set",
                            "data.dir=" + data,
                            "--set",
                            "listeners=PLAINTEXT://127.0.0.1:" + taken.getLocalPort(),
                            "--set",
                            "schema.registry.listen=");
            assertThat(r.exit()).as(r.stderr()).isEqualTo(3);
            assertThat(r.errors()).as(r.stderr()).hasSize(1);
            assertThat(r.errors().get(0))
                    .startsWith("tierlog serve: cannot bind /127.0.0.1:" + taken.getLocalPort())
                    .contains("Address already in use");
            assertThat(r.stderr()).doesNotContain("\tat ", "Exception");
            // checked right after the lock: no embedded S3 server, catalog or partitions opened
            assertThat(r.stderr()).doesNotContain("embedded S3", "catalog", "Opened");
            assertThat(files(data)).containsExactlyInAnyOrder("", "log", "log/.lock");
        }
    }
}
