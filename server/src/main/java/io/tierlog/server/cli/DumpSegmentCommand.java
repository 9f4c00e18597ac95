package io.tierlog.server.cli;

import io.tierlog.engine.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tierlog dump-segment FILE [--deep]}: kafka-dump-log-like listing. A torn or corrupt tail
 * is listed (exit 0); a file that is no segment (wrong name, or not one valid batch) is a usage
 * error (exit 2, one line). Stateless.
 */
@Command(
        name = "dump-segment",
        mixinStandardHelpOptions = true,
        description =
                "Print the batches (and with --deep the records) of a .log file, or the"
                        + " entries of a .index/.timeindex file.")
public final class DumpSegmentCommand implements Callable<Integer> {
    @Parameters(paramLabel = "FILE", description = "Segment file (.log, .index, .timeindex).")
    Path file;

    @Option(names = "--deep", description = "Also print every record of every batch.")
    boolean deep;

    @Override
    public Integer call() throws Exception {
        if (Files.isDirectory(file)) {
            throw CliException.usage(file + ": is a directory, not a segment file");
        }
        if (!Files.isRegularFile(file)) {
            throw CliException.usage(file + ": no such file");
        }
        Tools.DumpSummary summary;
        try {
            summary = Tools.dumpSegment(file, System.out, deep);
        } catch (IllegalArgumentException e) { // a file name that is no segment's
            throw new CliException(CliErrors.USAGE, e.getMessage(), e);
        } finally {
            System.out.flush();
        }
        if (summary.nothingValid()) {
            throw CliException.usage(
                    file
                            + ": not a Kafka log segment (not one valid record batch: "
                            + summary.stopReason()
                            + ")");
        }
        return CliErrors.OK;
    }
}
