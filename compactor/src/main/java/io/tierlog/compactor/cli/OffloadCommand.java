package io.tierlog.compactor.cli;

import io.tierlog.common.Config;
import io.tierlog.common.Time;
import io.tierlog.compactor.Compactor;
import io.tierlog.compactor.LogDirSource;
import io.tierlog.compactor.OffloadEnvironment;
import io.tierlog.compactor.PassResult;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.BiConsumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tierlog offload --log-dir DIR [--once]}: offloads the closed segments of every partition
 * folder in DIR (tierlog's own data or an Apache Kafka broker's log dir) into the cold tier,
 * without ever writing into DIR. With {@code --once} it runs one pass and exits (status 0 when
 * every partition succeeded, 1 otherwise; 2 for bad arguments or settings); without it runs until
 * SIGTERM/SIGINT. On a terminal it shows a progress bar of the backlog; otherwise one line per
 * object and a summary. Settings: defaults < {@code --config FILE} < {@code --set key=value}. Not
 * thread-safe (one run per instance).
 */
@Command(
        name = "offload",
        mixinStandardHelpOptions = true,
        description = {
            "Offload closed segments of a log dir into the cold tier (Parquet in S3 + catalog).",
            "Never writes into the log dir. Without s3.endpoint/catalog.url: the embedded S3 server"
                    + " and SQLite catalog in data.dir (./data)."
        })
public final class OffloadCommand implements Callable<Integer> {
    @Option(
            names = "--log-dir",
            required = true,
            paramLabel = "DIR",
            description = "Directory of partition folders (<topic>-<partition>) to offload.")
    Path logDir;

    @Option(names = "--once", description = "Run one pass, print a summary and exit.")
    boolean once;

    @Option(names = "--config", paramLabel = "FILE", description = "Properties file of settings.")
    Path configFile;

    @Option(
            names = "--set",
            paramLabel = "KEY=VALUE",
            description = "A setting; overrides the config file. Repeatable.")
    Map<String, String> sets = new LinkedHashMap<>();

    @Option(
            names = "--active-segments",
            paramLabel = "auto|include|exclude",
            description = {
                "Offload the last (active) segment of each partition too: include (the writer is"
                        + " stopped), exclude, or auto (include when DIR holds the clean-shutdown"
                        + " marker .kafka_cleanshutdown of a stopped broker). Default: auto."
            })
    String activeSegments = "auto";

    @Option(
            names = "--progress",
            paramLabel = "auto|bar|lines",
            description = "Progress display: bar, lines, or auto (bar on a terminal).")
    String progress = "auto";

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    private final PrintStream out;
    private final BiConsumer<Config, String> settingsCheck;

    /** A command that takes any setting (the unknown-key check is its embedder's). */
    public OffloadCommand() {
        this(System.out, (c, what) -> {});
    }

    /**
     * A command that passes the settings of {@code --config} and of {@code --set} to {@code
     * settingsCheck} (with {@code "--config FILE"} or {@code "--set"}) before using them: {@code
     * tierlog} checks them against the options of every module, which this module cannot see.
     */
    public OffloadCommand(BiConsumer<Config, String> settingsCheck) {
        this(System.out, settingsCheck);
    }

    OffloadCommand(PrintStream out) {
        this(out, (c, what) -> {});
    }

    private OffloadCommand(PrintStream out, BiConsumer<Config, String> settingsCheck) {
        this.out = out;
        this.settingsCheck = settingsCheck;
    }

    /** Runs the command on its own (outside {@code tierlog}), e.g. in a child JVM. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new OffloadCommand()).execute(args));
    }

    private LogDirSource.ActiveSegments activeSegmentsPolicy() {
        return switch (activeSegments) {
            case "auto" -> LogDirSource.ActiveSegments.AUTO;
            case "include" -> LogDirSource.ActiveSegments.INCLUDE;
            case "exclude" -> LogDirSource.ActiveSegments.EXCLUDE;
            default ->
                    throw new CommandLine.ParameterException(
                            spec.commandLine(),
                            "--active-segments must be auto, include or exclude, not "
                                    + activeSegments);
        };
    }

    Config config() throws IOException {
        Config c = configFile == null ? Config.empty() : Config.load(configFile);
        if (configFile != null) {
            settingsCheck.accept(c, "--config " + configFile);
        }
        settingsCheck.accept(Config.of(sets), "--set");
        return c.with(sets);
    }

    @Override
    public Integer call() throws Exception {
        if (!Files.isDirectory(logDir)) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--log-dir " + logDir + " is not a directory");
        }
        LogDirSource.ActiveSegments active = activeSegmentsPolicy();
        boolean bar =
                switch (progress) {
                    case "bar" -> true;
                    case "lines" -> false;
                    case "auto" -> System.console() != null;
                    default ->
                            throw new CommandLine.ParameterException(
                                    spec.commandLine(),
                                    "--progress must be auto, bar or lines, not " + progress);
                };
        Config config = config();
        Time time = Time.SYSTEM; // the one clock of this run: guard checks and the loop
        OffloadEnvironment opened;
        try {
            opened = OffloadEnvironment.open(config, Optional.of(logDir), time);
        } catch (io.tierlog.catalog.CatalogUnavailableException e) {
            System.err.println("tierlog offload: " + e.getMessage()); // one line, no stack trace
            return 2;
        }
        try (OffloadEnvironment env = opened;
                LogDirSource source = LogDirSource.open(logDir, active);
                Compactor compactor =
                        Compactor.create(
                                source,
                                Optional.of(logDir),
                                env.catalog(),
                                env.store(),
                                env.config(),
                                time)) {
            compactor.setGuard(env.guard());
            ProgressReporter reporter = bar ? new BarReporter() : new LineReporter(out);
            compactor.addListener(reporter);
            if (once) {
                PassResult result = compactor.runOnce();
                reporter.summary(result, compactor.lag());
                return result.failedPartitions() == 0 ? 0 : 1;
            }
            return runUntilStopped(compactor);
        }
    }

    private int runUntilStopped(Compactor compactor) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook =
                new Thread(
                        () -> {
                            compactor.close();
                            stopped.countDown();
                        },
                        "tierlog-offload-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        // The first orphan sweep runs in the loop, not here: S3 or the catalog being down at
        // start must not end the daemon (it retries with backoff and catches up later).
        compactor.start(true);
        stopped.await();
        return 0;
    }
}
