package io.tierlog.server.cli;

import io.tierlog.engine.PartitionReport;
import io.tierlog.engine.ReadOnlyTieredLog;
import io.tierlog.engine.Violation;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
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
        @Mixin SettingsOptions settings = new SettingsOptions();

        ReadOnlyTieredLog open() throws java.io.IOException {
            return ReadOnlyTieredLog.open(settings.load());
        }

        /** What to run with the opened data dir; returns the exit code. */
        interface Work {
            int run(ReadOnlyTieredLog log) throws Exception;
        }

        /**
         * Opens, runs, closes. A data dir or catalog that is not there fails as one line with exit
         * code 2 ({@link CliErrors}), not a stack trace: nothing was (or may be) created to make it
         * work.
         */
        int withLog(Work work) throws Exception {
            try (ReadOnlyTieredLog log = open()) {
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
                        + " lag, the last stable offset (lso) and each open transaction (producer"
                        + " id, epoch, first offset, time since its last write); per Iceberg"
                        + " table: snapshot, files, registered and catalog ranges, freshness lag"
                        + " against the target, drift and last error. Read-only: safe while the"
                        + " server runs."
            })
    static final class Inspect extends Base implements Callable<Integer> {
        @Parameters(arity = "0..1", paramLabel = "TOPIC", description = "Only this topic.")
        String topic;

        @Override
        public Integer call() throws Exception {
            return withLog(
                    log -> {
                        List<PartitionReport> reports = log.inspect(Optional.ofNullable(topic));
                        for (PartitionReport r : reports) {
                            System.out.println(r.format());
                        }
                        if (reports.isEmpty()) {
                            System.out.println(topic == null ? "no topics" : "no topic " + topic);
                        }
                        for (io.tierlog.engine.TableReport t :
                                log.tables(Optional.ofNullable(topic))) {
                            System.out.println(t.format());
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
                        return violations.isEmpty() ? CliErrors.OK : CliErrors.FOUND_PROBLEMS;
                    });
        }
    }
}
