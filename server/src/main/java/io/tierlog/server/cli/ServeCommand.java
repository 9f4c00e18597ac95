package io.tierlog.server.cli;

import io.tierlog.common.Config;
import io.tierlog.server.TierlogServer;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tierlog serve}: runs the server until SIGTERM/SIGINT, then shuts down gracefully (stop
 * accepting, flush, checkpoint, clean-shutdown marker). Settings: defaults, overridden by {@code
 * --config FILE} (Java properties, like Kafka's server.properties), overridden by each {@code --set
 * key=value}. Not thread-safe (one run per instance).
 */
@Command(
        name = "serve",
        mixinStandardHelpOptions = true,
        description = {
            "Run the Kafka-protocol server.",
            "Without options: data in ./data, listener PLAINTEXT://127.0.0.1:9092."
        })
public final class ServeCommand implements Callable<Integer> {
    @Option(names = "--config", paramLabel = "FILE", description = "Properties file of settings.")
    Path configFile;

    @Option(
            names = "--set",
            paramLabel = "KEY=VALUE",
            description = "A setting; overrides the config file. Repeatable.")
    Map<String, String> sets = new LinkedHashMap<>();

    /** The effective settings: defaults < --config FILE < --set. */
    Config config() throws java.io.IOException {
        Config c = configFile == null ? Config.empty() : Config.load(configFile);
        return c.with(sets);
    }

    @Override
    public Integer call() throws Exception {
        Config config = config();
        ConfigDocsCommand.warnUnknownKeys(config);
        TierlogServer server;
        try {
            server = TierlogServer.start(config);
        } catch (io.tierlog.catalog.CatalogUnavailableException e) {
            // One line that says what is wrong and what to run, not a stack trace.
            System.err.println("tierlog serve: " + e.getMessage());
            return 2;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    server.close();
                                    stopped.countDown();
                                },
                                "tierlog-shutdown"));
        stopped.await();
        return 0;
    }
}
