package io.tierlog.server.cli;

import io.tierlog.common.Config;
import io.tierlog.engine.PartitionReport;
import io.tierlog.engine.ReadOnlyTieredLog;
import io.tierlog.engine.Violation;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tierlog inspect} and {@code tierlog verify}: open a server's data dir read-only (same
 * settings as {@code serve}: {@code --config FILE}, {@code --set key=value}) through {@link
 * ReadOnlyTieredLog}, print, and close. Nothing is written into the hot log dir, so both may run
 * while the server runs. Not thread-safe (one run per instance).
 */
final class TieredCommands {
    private TieredCommands() {}

    /** Settings shared by both commands. */
    abstract static class Base {
        @Option(
                names = "--config",
                paramLabel = "FILE",
                description = "Properties file of settings.")
        Path configFile;

        @Option(
                names = "--set",
                paramLabel = "KEY=VALUE",
                description = "A setting; overrides the config file. Repeatable.")
        Map<String, String> sets = new LinkedHashMap<>();

        ReadOnlyTieredLog open() throws java.io.IOException {
            Config c = configFile == null ? Config.empty() : Config.load(configFile);
            return ReadOnlyTieredLog.open(c.with(sets));
        }

        /** What to run with the opened data dir; returns the exit code. */
        interface Work {
            int run(ReadOnlyTieredLog log) throws Exception;
        }

        /**
         * Opens, runs, closes. A data dir or catalog that is not there is one line on stderr and
         * exit code 2, not a stack trace: nothing was (or may be) created to make it work.
         */
        int withLog(String command, Work work) throws Exception {
            ReadOnlyTieredLog log;
            try {
                log = open();
            } catch (io.tierlog.catalog.CatalogUnavailableException
                    | java.nio.file.NoSuchFileException e) {
                String m =
                        e instanceof java.nio.file.NoSuchFileException nsf
                                ? nsf.getFile() + ": " + nsf.getReason()
                                : e.getMessage();
                System.err.println(
                        "tierlog "
                                + command
                                + ": "
                                + m
                                + (e instanceof io.tierlog.catalog.CatalogUnavailableException
                                        ? " (restore the catalog, or rebuild it from the bucket"
                                                + " with `tierlog catalog rebuild`)"
                                        : ""));
                return 2;
            }
            try (log) {
                return work.run(log);
            }
        }
    }

    /** {@code tierlog inspect [TOPIC]}. */
    @Command(
            name = "inspect",
            mixinStandardHelpOptions = true,
            description = {
                "Per partition: hot and cold offset ranges, cold object count and bytes, offload"
                        + " lag. Read-only: safe while the server runs."
            })
    static final class Inspect extends Base implements Callable<Integer> {
        @Parameters(arity = "0..1", paramLabel = "TOPIC", description = "Only this topic.")
        String topic;

        @Override
        public Integer call() throws Exception {
            return withLog(
                    "inspect",
                    log -> {
                        List<PartitionReport> reports = log.inspect(Optional.ofNullable(topic));
                        for (PartitionReport r : reports) {
                            System.out.println(r.format());
                        }
                        if (reports.isEmpty()) {
                            System.out.println(topic == null ? "no topics" : "no topic " + topic);
                        }
                        return 0;
                    });
        }
    }

    /** {@code tierlog verify}: exit 0 when every invariant holds, 1 otherwise. */
    @Command(
            name = "verify",
            mixinStandardHelpOptions = true,
            description = {
                "Checks the invariants of both tiers (cold contiguity, every catalogued object present"
                        + " and readable, hot and cold agree where they overlap); exits 1 on any"
                        + " violation. Read-only: safe while the server runs."
            })
    static final class Verify extends Base implements Callable<Integer> {
        @Option(
                names = "--deep",
                description = "Read every cold object in full and compare all overlapping records.")
        boolean deep;

        @Override
        public Integer call() throws Exception {
            return withLog(
                    "verify",
                    log -> {
                        List<Violation> violations = log.verify(deep);
                        for (Violation v : violations) {
                            System.out.println("VIOLATION " + v);
                        }
                        for (String note : log.notes()) {
                            System.out.println("NOTE " + note);
                        }
                        System.out.println(
                                violations.isEmpty()
                                        ? "verify: OK"
                                        : "verify: " + violations.size() + " violation(s)");
                        return violations.isEmpty() ? 0 : 1;
                    });
        }
    }
}
