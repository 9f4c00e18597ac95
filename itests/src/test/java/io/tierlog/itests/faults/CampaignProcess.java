package io.tierlog.itests.faults;

import io.tierlog.common.testing.Await;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One child JVM of the fault campaign running the {@code tierlog} CLI ({@code serve}, {@code
 * offload} or {@code verify}), so that {@link #kill()} is a real SIGKILL ({@link
 * Process#destroyForcibly()} on Linux): no shutdown hook, no flush, no clean-shutdown marker. Each
 * start appends its output to one log file, which a failing schedule names. Not thread-safe (owned
 * by the schedule's thread).
 */
final class CampaignProcess {
    /** Small heap, quick start: the campaign starts several JVMs per schedule on 2 shared cores. */
    private static final List<String> JVM_FLAGS =
            List.of(
                    "-Xmx320m",
                    "-Xss512k",
                    "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1",
                    "-XX:-UsePerfData",
                    "-Dorg.slf4j.simpleLogger.showDateTime=true",
                    "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");

    /** The campaign's class data sharing archive, once dumped ({@link #dumpClassArchive}). */
    private static volatile Path classArchive;

    private final String name;
    private final String classpath;
    private final List<String> args;
    private final Path log;
    private final List<String> extraFlags = new ArrayList<>();
    private Process process;
    private int starts;

    private CampaignProcess(String name, String classpath, List<String> args, Path log) {
        this.name = name;
        this.classpath = classpath;
        this.args = args;
        this.log = log;
    }

    /** {@code tierlog <command> [fixed args] --set k=v ...}; not started yet. */
    static CampaignProcess of(
            String name,
            String classpath,
            List<String> commandAndArgs,
            Map<String, String> settings,
            Path log) {
        List<String> a = new ArrayList<>(commandAndArgs);
        settings.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(
                        e -> {
                            a.add("--set");
                            a.add(e.getKey() + "=" + e.getValue());
                        });
        return new CampaignProcess(name, classpath, List.copyOf(a), log);
    }

    void start() throws IOException {
        if (isAlive()) {
            throw new IllegalStateException(name + " already running");
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JVM_FLAGS);
        Path archive = classArchive;
        if (archive != null) {
            // Classes mapped from the archive instead of parsed and verified at each start: the
            // campaign starts a JVM for every kill and restart. -Xshare:auto: a JVM that cannot
            // map it starts without it.
            cmd.add("-XX:SharedArchiveFile=" + archive);
            cmd.add("-Xshare:auto");
        }
        cmd.addAll(extraFlags);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add("io.tierlog.server.cli.TierlogCli");
        cmd.addAll(args);
        Files.createDirectories(log.getParent());
        Files.writeString(
                log,
                "==== start " + (++starts) + " of " + name + ": " + args + "\n",
                java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
        process =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                        .start();
    }

    /**
     * Dumps a dynamic class data sharing archive of the classes a server loads to start, create a
     * topic and stop ({@code serve} with {@code settings} listening on {@code port}), and makes
     * every later start of any campaign process use it. Empty (and nothing changes) when the JVM
     * did not write one; the reason is in {@code log}.
     */
    static java.util.Optional<Path> dumpClassArchive(
            String classpath,
            Map<String, String> settings,
            int port,
            Path archive,
            Path log,
            Runnable whileListening)
            throws IOException, InterruptedException {
        Files.deleteIfExists(archive);
        CampaignProcess p = of("class archive dump", classpath, List.of("serve"), settings, log);
        p.extraFlags.add("-XX:ArchiveClassesAtExit=" + archive);
        p.start();
        try {
            if (p.awaitListening(port, Duration.ofSeconds(60))) {
                whileListening.run();
            }
        } finally {
            p.stop(Duration.ofSeconds(60)); // the archive is written as the JVM exits
        }
        if (Files.isRegularFile(archive) && Files.size(archive) > 0) {
            classArchive = archive;
            return java.util.Optional.of(archive);
        }
        return java.util.Optional.empty();
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** The exit status of a process that ended on its own, or empty while it runs. */
    java.util.OptionalInt exitStatus() {
        return process == null || process.isAlive()
                ? java.util.OptionalInt.empty()
                : java.util.OptionalInt.of(process.exitValue());
    }

    /** SIGKILL and wait for the process to be gone. */
    void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor();
        }
    }

    /**
     * SIGTERM (graceful shutdown through the server's hook); true when it ended within {@code
     * timeout}, false when it had to be killed.
     */
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

    /** Runs to completion (a one-shot command); the exit status, or empty after a timeout kill. */
    java.util.OptionalInt runToEnd(Duration timeout) throws IOException, InterruptedException {
        start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            kill();
            return java.util.OptionalInt.empty();
        }
        return java.util.OptionalInt.of(process.exitValue());
    }

    /**
     * Polls (with a deadline) until {@code port} accepts connections; false if the process died or
     * the deadline passed.
     */
    boolean awaitListening(int port, Duration timeout) {
        return Await.atMost(timeout, () -> !isAlive() || accepts(port), doneOrDead -> doneOrDead)
                && isAlive();
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException notYet) {
            return false;
        }
    }

    Path log() {
        return log;
    }

    @Override
    public String toString() {
        return name;
    }
}
