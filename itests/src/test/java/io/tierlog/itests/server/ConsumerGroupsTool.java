package io.tierlog.itests.server;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.internals.Exit;
import org.apache.kafka.tools.consumer.group.ConsumerGroupCommand;

/**
 * Apache Kafka 4.4's {@code kafka-consumer-groups} ({@code ConsumerGroupCommand.main}) run in this
 * JVM, much faster than a child JVM per run: its stdout and stderr are captured, and a call of
 * Kafka's {@code Exit} becomes the exit code instead of ending the JVM. Serialised (it swaps {@code
 * System.out} / {@code System.err} and Kafka's exit procedure); echoes each run to the real stdout.
 */
final class ConsumerGroupsTool {
    /** A finished run: its exit code and its output (stdout then stderr). */
    record Run(int exit, String out) {}

    private static final class Exited extends RuntimeException {
        final int code;

        Exited(int code) {
            super(null, null, false, false);
            this.code = code;
        }
    }

    private ConsumerGroupsTool() {}

    static synchronized Run run(String bootstrap, String... args) {
        List<String> all = new ArrayList<>(List.of("--bootstrap-server", bootstrap));
        all.addAll(List.of(args));
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = 0;
        Exit.setExitProcedure(
                (code, message) -> {
                    throw new Exited(code);
                });
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            ConsumerGroupCommand.main(all.toArray(String[]::new));
        } catch (Exited e) {
            exit = e.code;
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
            Exit.resetExitProcedure();
        }
        Run r =
                new Run(
                        exit,
                        out.toString(StandardCharsets.UTF_8)
                                + err.toString(StandardCharsets.UTF_8));
        oldOut.println(
                "kafka-consumer-groups " + String.join(" ", args) + " -> " + exit + "\n" + r.out);
        return r;
    }
}
