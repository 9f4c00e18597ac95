package io.tierlog.itests.testing;

import io.tierlog.itests.kafka.KafkaBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one of Apache Kafka 4.4.0's command-line tools (the class behind its {@code kafka-*.sh}
 * script) in a child JVM, as an operator runs it, and returns its exit code and output (stdout and
 * stderr together). A child JVM because the tools call {@code System.exit}. Stateless, thread-safe.
 */
public final class KafkaCli {
    /** {@code kafka-topics.sh}. */
    public static final String TOPICS = "org.apache.kafka.tools.TopicCommand";

    /** {@code kafka-get-offsets.sh}. */
    public static final String GET_OFFSETS = "org.apache.kafka.tools.GetOffsetShell";

    /** {@code kafka-acls.sh}. */
    public static final String ACLS = "org.apache.kafka.tools.AclCommand";

    /** {@code kafka-transactions.sh}. */
    public static final String TRANSACTIONS = "org.apache.kafka.tools.TransactionsCommand";

    /** A finished tool: its exit code and everything it printed. */
    public record Run(int exit, String out) {}

    private KafkaCli() {}

    /** Runs {@code mainClass args...}, with scratch output files in {@code scratch}. */
    public static Run run(Path scratch, String mainClass, String... args)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(mainClass);
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(scratch, "kafka-cli-", ".out");
        Process p = KafkaBroker.javaProcess(cmd, out).start();
        if (!p.waitFor(3, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("did not finish in 3 minutes: " + cmd);
        }
        Run r = new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        String name = mainClass.substring(mainClass.lastIndexOf('.') + 1);
        System.out.println(name + " " + String.join(" ", args) + " -> " + r.exit + "\n" + r.out);
        return r;
    }
}
