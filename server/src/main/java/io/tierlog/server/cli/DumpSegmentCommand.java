package io.tierlog.server.cli;

import io.tierlog.hot.SegmentDump;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tierlog dump-segment FILE [--deep]}: kafka-dump-log-like listing. Stateless. */
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
        if (!Files.isRegularFile(file)) {
            System.err.println("tierlog: no such file: " + file);
            return 2;
        }
        SegmentDump.dump(file, System.out, deep);
        System.out.flush();
        return 0;
    }
}
