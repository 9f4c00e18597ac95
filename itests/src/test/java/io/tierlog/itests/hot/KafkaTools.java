package io.tierlog.itests.hot;

import io.tierlog.itests.kafka.KafkaBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs Apache Kafka 4.4.0's {@code org.apache.kafka.tools.DumpLogSegments} (the class behind {@code
 * kafka-dump-log.sh}; it moved from {@code kafka.tools} to {@code org.apache.kafka.tools} in Kafka
 * 4) as a child JVM and returns its output.
 *
 * <p>Thread-safety: stateless, thread-safe.
 */
final class KafkaTools {
    /** Phrases DumpLogSegments prints when a log or index is not what Kafka expects. */
    static final List<String> ERROR_PHRASES =
            List.of(
                    "Mismatches in",
                    "Non-consecutive offsets",
                    "indexed offsets are not found",
                    "out of order timestamp",
                    "timestamp mismatch",
                    "invalid bytes at the end",
                    "isvalid: false",
                    "isValid: false",
                    "Error at",
                    "Exception",
                    "Corrupt");

    private KafkaTools() {}

    /** Output (stdout + stderr) of {@code DumpLogSegments --files FILES OPTIONS}; exit code 0. */
    static String dumpLogSegments(List<Path> files, Path scratch, String... options)
            throws IOException, InterruptedException {
        List<String> args = new ArrayList<>();
        args.add("org.apache.kafka.tools.DumpLogSegments");
        args.add("--files");
        args.add(String.join(",", files.stream().map(Path::toString).toList()));
        args.addAll(List.of(options));
        Path out = Files.createTempFile(scratch, "dump-", ".out");
        Process p = KafkaBroker.javaProcess(args, out).start();
        if (!p.waitFor(3, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IOException("DumpLogSegments did not finish: " + args);
        }
        String text = Files.readString(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new AssertionError(
                    "DumpLogSegments exited with " + p.exitValue() + " for " + args + ":\n" + text);
        }
        return text;
    }

    /**
     * Lines of {@code text} that contain an error phrase, each with the indented detail lines
     * DumpLogSegments prints under it (at most 5); empty when Kafka found no problem.
     *
     * <p>One report is not an error and is dropped: Kafka 4.4's deep iteration starts every file at
     * "last offset" -1, so for any segment whose base offset B is not 0 it prints {@code
     * Non-consecutive offsets in <file>} with the single pair {@code -1 is followed by B}; it does
     * so for segments written by Kafka's own broker too.
     */
    static List<String> errorLines(String text) {
        List<List<String>> blocks = new ArrayList<>();
        List<String> current = null;
        for (String line : text.lines().toList()) {
            if (ERROR_PHRASES.stream().anyMatch(line::contains)) {
                current = new ArrayList<>();
                current.add(line);
                blocks.add(current);
            } else if (current != null && line.startsWith("  ") && current.size() < 6) {
                current.add(line);
            } else {
                current = null;
            }
        }
        List<String> out = new ArrayList<>();
        for (List<String> block : blocks) {
            if (!isFirstRecordOfSegment(block)) {
                out.addAll(block);
            }
        }
        return out;
    }

    private static boolean isFirstRecordOfSegment(List<String> block) {
        String header = block.get(0);
        String prefix = "Non-consecutive offsets in ";
        if (!header.startsWith(prefix) || block.size() != 2) {
            return false;
        }
        String file = Path.of(header.substring(prefix.length()).trim()).getFileName().toString();
        long base = Long.parseLong(file.substring(0, file.indexOf('.')));
        return block.get(1).trim().equals("-1 is followed by " + base);
    }
}
