package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.itests.kafka.KafkaBroker;
import io.tierlog.itests.testing.KafkaCli;
import io.tierlog.itests.testing.KafkaCli.Run;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Differential: Kafka 4.4's {@code kafka-acls} against a real Kafka 4.4 broker without an
 * authorizer and against tierlog (which has none either): the same exit code and the same error
 * lines for {@code --list}, {@code --add} and {@code --remove}.
 */
class AclsWithoutAuthorizerIT {
    @TempDir Path dir;

    private static final List<List<String>> COMMANDS =
            List.of(
                    List.of("--list"),
                    List.of(
                            "--add",
                            "--allow-principal",
                            "User:alice",
                            "--operation",
                            "Read",
                            "--topic",
                            "t"),
                    List.of(
                            "--remove",
                            "--allow-principal",
                            "User:alice",
                            "--operation",
                            "Read",
                            "--topic",
                            "t",
                            "--force"));

    @Test
    void kafkaAclsGivesTheSameExitCodeAndErrorAsAgainstAKafkaBrokerWithoutAnAuthorizer()
            throws Exception {
        try (KafkaBroker kafka = KafkaBroker.start(dir.resolve("kafka"));
                ServerHarness tierlog = new ServerHarness(dir.resolve("tierlog"), Map.of())) {
            for (List<String> cmd : COMMANDS) {
                Run expected = acls(kafka.bootstrapServers(), cmd);
                Run actual = acls(tierlog.bootstrap(), cmd);
                assertThat(actual.exit()).as("exit code of %s", cmd).isEqualTo(expected.exit());
                List<String> errors = errorLines(expected.out());
                assertThat(errors).as("Kafka reports an error for %s", cmd).isNotEmpty();
                assertThat(errorLines(actual.out())).as("%s", cmd).isEqualTo(errors);
            }
        }
    }

    private Run acls(String bootstrap, List<String> args) throws Exception {
        String[] all = new String[args.size() + 2];
        all[0] = "--bootstrap-server";
        all[1] = bootstrap;
        for (int i = 0; i < args.size(); i++) {
            all[i + 2] = args.get(i);
        }
        return KafkaCli.run(dir, KafkaCli.ACLS, all);
    }

    /** The lines naming an error, without a log line's timestamp and thread. */
    private static List<String> errorLines(String out) {
        return out.lines()
                .filter(l -> l.contains("Exception") || l.contains("Error"))
                .filter(l -> !l.trim().startsWith("at "))
                .map(l -> l.replaceFirst("^\\S+ \\[[^\\]]*\\] ", ""))
                .toList();
    }
}
