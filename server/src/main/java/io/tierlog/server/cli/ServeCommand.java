package io.tierlog.server.cli;

import io.tierlog.common.Config;
import io.tierlog.server.TierlogServer;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

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
    @Mixin SettingsOptions settings = new SettingsOptions();

    /** The effective settings: defaults < --config FILE < --set; every key checked. */
    Config config() throws java.io.IOException {
        return settings.load();
    }

    @Override
    public Integer call() throws Exception {
        Config config = config();
        // Failures (data dir in use, port in use, catalog missing) are one line: CliErrors.
        TierlogServer server = TierlogServer.start(config);
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
