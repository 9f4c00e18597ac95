package io.tierlog.itests.testing;

import io.tierlog.server.cli.TierlogCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Runs {@code tierlog} commands in the test's JVM, capturing what they print: for tests that check
 * a command's exit code and its one-line messages without starting a process. Serialised (it swaps
 * {@code System.out} and {@code System.err}); echoes each run to the real stdout for the test log.
 */
public final class InProcessCli {
    /** A finished command: its exit code and what it printed. */
    public record Cli(int exit, String out, String err) {}

    private InProcessCli() {}

    /** Runs {@code tierlog args...}, capturing its stdout and stderr. */
    public static synchronized Cli run(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            exit = TierlogCli.commandLine().execute(args);
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
        Cli r =
                new Cli(
                        exit,
                        out.toString(StandardCharsets.UTF_8),
                        err.toString(StandardCharsets.UTF_8));
        oldOut.println("tierlog " + String.join(" ", args) + " -> " + exit + "\n" + r.out + r.err);
        return r;
    }
}
