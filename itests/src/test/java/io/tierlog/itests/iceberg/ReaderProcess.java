package io.tierlog.itests.iceberg;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An outside reader run as a child JVM: its stdout's JSON lines (other lines are ignored), its
 * stderr kept in a file for the failure message. Thread-safe: stateless.
 */
final class ReaderProcess {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What a reader printed. */
    record Output(List<JsonNode> lines, Path stderr) {}

    private ReaderProcess() {}

    /**
     * Runs {@code main} with {@code jvmArgs} on {@code classPath}, waits up to {@code timeout}, and
     * returns its JSON lines.
     *
     * @throws AssertionError if it timed out or exited non-zero (with its stdout and the tail of
     *     its stderr)
     */
    static Output run(
            Path workDir,
            String name,
            List<String> jvmArgs,
            String classPath,
            String main,
            List<String> args,
            Duration timeout)
            throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        Path out = workDir.resolve(name + ".out");
        Path err = workDir.resolve(name + ".err");
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(main);
        cmd.addAll(args);
        Process p =
                new ProcessBuilder(cmd)
                        .directory(workDir.toFile())
                        .redirectOutput(out.toFile())
                        .redirectError(err.toFile())
                        .start();
        boolean ended = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!ended) {
            p.destroyForcibly().waitFor();
        }
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        if (!ended || p.exitValue() != 0) {
            throw new AssertionError(
                    name
                            + (ended ? " exited " + p.exitValue() : " timed out after " + timeout)
                            + "\nstdout:\n"
                            + stdout
                            + "\nstderr (tail):\n"
                            + tail(err, 60));
        }
        List<JsonNode> lines = new ArrayList<>();
        for (String line : stdout.split("\n")) {
            if (line.startsWith("{")) {
                lines.add(JSON.readTree(line));
            }
        }
        return new Output(lines, err);
    }

    static String tail(Path file, int lines) throws IOException {
        List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }
}
