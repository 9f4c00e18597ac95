package io.tierlog.itests.iceberg;

import io.tierlog.common.testing.Await;
import io.tierlog.itests.testing.ServeProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * A {@code tierlog serve} child JVM for the Iceberg ITs, started again and again over one data dir:
 * {@link #kill()} is a real SIGKILL, and a start may arm the halt hooks ({@code
 * -Dtierlog.iceberg.halt.at}, {@code -Dtierlog.iceberg.halt.skip}) so the server halts itself with
 * exit 137 at a named point, possibly before it even listens. Every start appends to one log. Not
 * thread-safe (owned by the test's thread).
 */
final class ServerChild {
    /** Small heap, quick start: the campaign starts a JVM per kill on 2 shared cores. */
    private static final List<String> JVM_FLAGS =
            List.of(
                    "-Xmx384m",
                    "-Xss512k",
                    "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1",
                    "-XX:-UsePerfData",
                    "-Dorg.slf4j.simpleLogger.showDateTime=true",
                    "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");

    private final int port;
    private final Map<String, String> settings;
    private final Path log;
    private String classpath = System.getProperty("java.class.path");
    private final List<String> extraFlags = new ArrayList<>();
    private Process process;
    private int starts;

    ServerChild(int port, Map<String, String> settings, Path log) {
        this.port = port;
        this.settings = Map.copyOf(settings);
        this.log = log;
    }

    /**
     * Starts children on {@code classpath} (see {@link ClassArchive}): the next start dumps a
     * dynamic class data sharing archive to {@code archive} as it exits gracefully, every later one
     * maps it ({@code -Xshare:auto}: a JVM that cannot, starts without it).
     */
    void shareClasses(String classpath, Path archive) {
        this.classpath = classpath;
        extraFlags.clear();
        extraFlags.add("-XX:ArchiveClassesAtExit=" + archive);
        this.archive = archive;
    }

    private Path archive;

    /** After the dumping start ended: later starts use the archive, if one was written. */
    boolean useArchive() throws IOException {
        extraFlags.clear();
        if (archive != null && Files.isRegularFile(archive) && Files.size(archive) > 0) {
            extraFlags.add("-XX:SharedArchiveFile=" + archive);
            extraFlags.add("-Xshare:auto");
            return true;
        }
        return false;
    }

    String bootstrap() {
        return "127.0.0.1:" + port;
    }

    Path log() {
        return log;
    }

    /** Starts the server (not waiting for it), with {@code sysProps} as {@code -D} flags. */
    void start(Map<String, String> sysProps) throws IOException {
        start(sysProps, Map.of());
    }

    /** As {@link #start(Map)}, with {@code overrides} over the settings for this start only. */
    void start(Map<String, String> sysProps, Map<String, String> overrides) throws IOException {
        Map<String, String> effective = new java.util.TreeMap<>(settings);
        effective.putAll(overrides);
        if (isAlive()) {
            throw new IllegalStateException("server already running");
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JVM_FLAGS);
        cmd.addAll(extraFlags);
        sysProps.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add("io.tierlog.server.cli.TierlogCli");
        cmd.add("serve");
        cmd.add("--set");
        cmd.add("listeners=PLAINTEXT://127.0.0.1:" + port);
        effective.entrySet().stream()
                .forEach(
                        e -> {
                            cmd.add("--set");
                            cmd.add(e.getKey() + "=" + e.getValue());
                        });
        Files.createDirectories(log.getParent());
        Files.writeString(
                log,
                "==== start " + (++starts) + " " + sysProps + "\n",
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        process =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                        .start();
    }

    /** Starts the server without hooks and fails unless it listens within 90 s. */
    void startListening() throws IOException {
        start(Map.of());
        if (!awaitListening(Duration.ofSeconds(90))) {
            throw new AssertionError(
                    "server did not listen (exit "
                            + exitStatus()
                            + "); log: "
                            + log
                            + "\n"
                            + tail(30));
        }
    }

    /** Polls until the server listens (true) or exits or the deadline passes (false). */
    boolean awaitListening(Duration timeout) {
        return Await.atMost(
                        timeout,
                        () -> !isAlive() || ServeProcess.accepts(port),
                        doneOrDead -> doneOrDead)
                && isAlive();
    }

    /** Polls until the process exits on its own; its status, or empty at the deadline. */
    OptionalInt awaitExit(Duration timeout) throws InterruptedException {
        if (process == null) {
            return OptionalInt.empty();
        }
        if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return OptionalInt.of(process.exitValue());
        }
        return OptionalInt.empty();
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    OptionalInt exitStatus() {
        return process == null || process.isAlive()
                ? OptionalInt.empty()
                : OptionalInt.of(process.exitValue());
    }

    /** SIGKILL, and wait for the process to be gone. */
    void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor();
        }
    }

    /** SIGTERM; true when it ended within {@code timeout} (else it is killed). */
    boolean stop(Duration timeout) throws InterruptedException {
        if (process == null || !process.isAlive()) {
            return true;
        }
        process.destroy();
        if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return true;
        }
        kill();
        return false;
    }

    /** The last {@code n} lines of the log. */
    String tail(int n) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
