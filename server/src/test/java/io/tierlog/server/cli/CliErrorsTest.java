package io.tierlog.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import io.tierlog.server.ServerOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Every CLI error a newcomer meets is one line on stderr ({@code tierlog <command>: ...}) with its
 * documented exit code, and a stack trace only with {@code --verbose}.
 */
class CliErrorsTest {
    @TempDir Path dir;

    /** One run: exit code and the stderr lines (stdout is kept apart and ignored). */
    record Run(int exit, List<String> err) {
        boolean hasStackTrace() {
            return err.stream().anyMatch(l -> l.startsWith("\tat ") || l.contains("Exception:"));
        }
    }

    static Run run(String... args) {
        StringWriter err = new StringWriter();
        PrintStream oldOut = System.out;
        int exit;
        try {
            System.setOut(new PrintStream(new ByteArrayOutputStream(), true));
            CommandLine cl = TierlogCli.commandLine();
            cl.setErr(new PrintWriter(err, true));
            exit = cl.execute(args);
        } finally {
            System.setOut(oldOut);
        }
        List<String> lines =
                Arrays.stream(err.toString().split("\\R")).filter(l -> !l.isEmpty()).toList();
        return new Run(exit, lines);
    }

    private static void assertOneLine(Run r, int exit, String prefix) {
        assertThat(r.exit()).as("%s", r.err()).isEqualTo(exit);
        assertThat(r.err()).as("stderr").hasSize(1);
        assertThat(r.err().get(0)).startsWith(prefix);
        assertThat(r.hasStackTrace()).isFalse();
    }

    @Test
    void dumpSegmentOfAFileThatIsNoSegmentIsOneLineAndExit2() throws Exception {
        Path notes = Files.writeString(dir.resolve("notes.txt"), "hello\n");
        Run r = run("dump-segment", notes.toString());
        assertOneLine(r, CliErrors.USAGE, "tierlog dump-segment: " + notes + ": not a segment");

        // named like a segment, but not one valid batch inside
        Path fake = Files.writeString(dir.resolve("00000000000000000000.log"), "hello world\n");
        r = run("dump-segment", fake.toString());
        assertOneLine(r, CliErrors.USAGE, "tierlog dump-segment: " + fake);
        assertThat(r.err().get(0)).contains("not a Kafka log segment");

        r = run("dump-segment", dir.toString());
        assertOneLine(r, CliErrors.USAGE, "tierlog dump-segment: " + dir + ": is a directory");
    }

    @Test
    void withVerboseTheSameErrorAlsoPrintsItsStackTrace() throws Exception {
        Path notes = Files.writeString(dir.resolve("notes.txt"), "hello\n");
        for (String[] args :
                new String[][] {
                    {"--verbose", "dump-segment", notes.toString()},
                    {"dump-segment", notes.toString(), "--verbose"}
                }) {
            Run r = run(args);
            assertThat(r.exit()).isEqualTo(CliErrors.USAGE);
            assertThat(r.err().get(0)).startsWith("tierlog dump-segment: " + notes);
            assertThat(r.hasStackTrace()).as("%s", r.err()).isTrue();
        }
    }

    @Test
    void inspectAndVerifyOnAWrongDirAreOneLineAndExit2() throws Exception {
        Path empty = Files.createDirectories(dir.resolve("not-a-data-dir"));
        assertOneLine(
                run("inspect", "--set", "data.dir=" + empty),
                CliErrors.USAGE,
                "tierlog inspect: " + empty.resolve("log") + ": not a tierlog data dir");
        assertOneLine(
                run("verify", "--set", "data.dir=" + dir.resolve("missing")),
                CliErrors.USAGE,
                "tierlog verify: ");
        // a log folder but no catalog: what to do is in the line
        Files.createDirectories(empty.resolve("log"));
        Run r = run("inspect", "--set", "data.dir=" + empty);
        assertOneLine(r, CliErrors.USAGE, "tierlog inspect: ");
        assertThat(r.err().get(0)).contains("catalog.db").contains("tierlog catalog rebuild");
    }

    @Test
    void aMistypedSettingStopsServeBeforeAnythingStartsNamingTheClosestKey() throws Exception {
        Path data = dir.resolve("data");
        Run r = run("serve", "--set", "data.dirr=" + data);
        assertOneLine(r, CliErrors.USAGE, "tierlog serve: --set: unknown setting 'data.dirr'");
        assertThat(r.err().get(0)).contains("did you mean 'data.dir'?");
        assertThat(data).doesNotExist();

        Path props = Files.writeString(dir.resolve("server.properties"), "num.partition=3\n");
        r = run("serve", "--config", props.toString(), "--set", "data.dir=" + data);
        assertOneLine(r, CliErrors.USAGE, "tierlog serve: --config " + props + ": unknown");
        assertThat(r.err().get(0)).contains("did you mean 'num.partitions'?");
        assertThat(data).doesNotExist();

        r = run("serve", "--config", dir.resolve("nope.properties").toString());
        assertOneLine(r, CliErrors.USAGE, "tierlog serve: --config ");
        assertThat(r.err().get(0)).endsWith("no such file");
    }

    @Test
    void anInvalidValueIsOneLineNamingTheKeyAndExit2() {
        Path data = dir.resolve("data");
        Run r = run("serve", "--set", "data.dir=" + data, "--set", "num.partitions=many");
        assertOneLine(r, CliErrors.USAGE, "tierlog serve: ");
        assertThat(r.err().get(0)).contains("num.partitions").contains("many");
        assertThat(data).doesNotExist();
    }

    @Test
    void theOtherCommandsCheckSettingKeysToo() {
        Path data = dir.resolve("data");
        assertOneLine(
                run("inspect", "--set", "data.dri=" + data),
                CliErrors.USAGE,
                "tierlog inspect: --set: unknown setting 'data.dri': did you mean 'data.dir'?");
        assertOneLine(
                run("catalog", "rebuild", "--set", "s3.endpiont=http://x"),
                CliErrors.USAGE,
                "tierlog catalog rebuild: --set: unknown setting 's3.endpiont': did you mean"
                        + " 's3.endpoint'?");
        assertOneLine(
                run("offload", "--log-dir", dir.toString(), "--once", "--set", "offload.treads=2"),
                CliErrors.USAGE,
                "tierlog offload: --set: unknown setting 'offload.treads': did you mean"
                        + " 'offload.threads'?");
        assertThat(data).doesNotExist();
    }

    @Test
    void kafkaServerPropertiesKeysAreAcceptedAndTakeNoEffect() throws Exception {
        Path props =
                Files.writeString(
                        dir.resolve("server.properties"),
                        "broker.id=0\nnum.io.threads=8\nlog.dirs=/tmp/kafka-logs\n"
                                + "log.retention.hours=168\nnum.partitions=3\n");
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs("--config", props.toString());
        Config c = serve.config();
        assertThat(c.get(ServerOptions.NUM_PARTITIONS)).isEqualTo(3);
        assertThat(c.get(ServerOptions.DATA_DIR)).isEqualTo("./data"); // log.dirs: no effect
    }

    @Test
    void usageErrorsAreOneLineWithTheSuggestionAndExit2() {
        Run r = run("servee");
        assertOneLine(r, CliErrors.USAGE, "tierlog: Unmatched argument at index 0: 'servee'");
        assertThat(r.err().get(0)).contains("serve").contains("tierlog --help");
        r = run("serve", "--sett", "data.dir=x");
        assertOneLine(r, CliErrors.USAGE, "tierlog serve: Unknown option");
        assertThat(r.err().get(0)).contains("--set");
        assertOneLine(run("offload", "--once"), CliErrors.USAGE, "tierlog offload: Missing");
        assertOneLine(
                run("offload", "--log-dir", dir.resolve("nope").toString(), "--once"),
                CliErrors.USAGE,
                "tierlog offload: --log-dir " + dir.resolve("nope") + " is not a directory");
    }

    @Test
    void anUnexpectedFailureIsOneLineNamingItAndPointingToVerbose() {
        CliErrors.Failure f =
                CliErrors.classify(new IllegalStateException("invariant broken\n at line 2"));
        assertThat(f.exitCode()).isEqualTo(CliErrors.FAILED);
        assertThat(f.message())
                .isEqualTo(
                        "unexpected error: java.lang.IllegalStateException: invariant broken at"
                                + " line 2 (run with --verbose for the stack trace)");
        // a known cause deep in the chain is found and reported by itself
        f =
                CliErrors.classify(
                        new java.io.UncheckedIOException(
                                new java.net.BindException("cannot bind /127.0.0.1:9092: in use")));
        assertThat(f).isEqualTo(new CliErrors.Failure(3, "cannot bind /127.0.0.1:9092: in use"));
        f = CliErrors.classify(new java.io.IOException("disk on fire"));
        assertThat(f).isEqualTo(new CliErrors.Failure(3, "disk on fire"));
    }
}
