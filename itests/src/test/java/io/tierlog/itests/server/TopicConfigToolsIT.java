package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.itests.kafka.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Topic configs and dynamic broker configs as an operator sets them: Apache Kafka 4.4's own {@code
 * kafka-topics} ({@code TopicCommand}) and {@code kafka-configs} ({@code ConfigCommand}) in a child
 * JVM, exit code and output checked, and the AdminClient's incrementalAlterConfigs and
 * describeConfigs; what was altered survives a server restart and acts on the open partitions.
 */
class TopicConfigToolsIT {
    private static final String TOPIC = "cfg-t";

    @TempDir Path dir;
    private ServerHarness server;

    @BeforeEach
    void start() throws Exception {
        server = new ServerHarness(dir.resolve("data"), Map.of());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private record Tool(int exit, String out) {}

    private Tool run(String main, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(main);
        cmd.add("--bootstrap-server");
        cmd.add(server.bootstrap());
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "tool-", ".out");
        Process p = KafkaBroker.javaProcess(cmd, out).start();
        if (!p.waitFor(3, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("did not finish: " + cmd);
        }
        Tool t = new Tool(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        System.out.println(main + " " + String.join(" ", args) + " -> " + t.exit + "\n" + t.out);
        return t;
    }

    private Tool topics(String... args) throws Exception {
        return run("org.apache.kafka.tools.TopicCommand", args);
    }

    private Tool configs(String... args) throws Exception {
        return run("org.apache.kafka.tools.ConfigCommand", args);
    }

    private static Throwable cause(Throwable e) {
        return e instanceof ExecutionException x ? x.getCause() : e;
    }

    private Map<String, ConfigEntry> describe(Admin admin, ConfigResource r) throws Exception {
        Config c =
                admin.describeConfigs(
                                List.of(r),
                                new DescribeConfigsOptions()
                                        .includeSynonyms(true)
                                        .includeDocumentation(true))
                        .all()
                        .get(30, TimeUnit.SECONDS)
                        .get(r);
        Map<String, ConfigEntry> m = new java.util.HashMap<>();
        for (ConfigEntry e : c.entries()) {
            m.put(e.name(), e);
        }
        return m;
    }

    private long localRetentionMs(String topic) {
        return server.server()
                .engine()
                .logManager()
                .partition(new TopicPartition(topic, 0))
                .orElseThrow()
                .config()
                .localRetentionMs()
                .orElseThrow()
                .toMillis();
    }

    @Test
    void kafkaTopicsCreatesWithKafkasConfigNamesAndRefusesCompactionAndUnknownKeys()
            throws Exception {
        Tool created =
                topics(
                        "--create",
                        "--topic",
                        TOPIC,
                        "--partitions",
                        "2",
                        "--config",
                        "retention.ms=600000",
                        "--config",
                        "max.message.bytes=200000",
                        "--config",
                        "compression.type=zstd",
                        "--config",
                        "min.insync.replicas=1");
        assertThat(created.exit()).as(created.out()).isZero();
        assertThat(created.out()).contains("Created topic " + TOPIC);

        Tool described = topics("--describe", "--topic", TOPIC);
        assertThat(described.exit()).as(described.out()).isZero();
        assertThat(described.out())
                .contains("retention.ms=600000")
                .contains("max.message.bytes=200000")
                .contains("compression.type=zstd");
        assertThat(localRetentionMs(TOPIC))
                .as("retention.ms acts on the partition")
                .isEqualTo(600000);

        Tool compact =
                topics("--create", "--topic", "cfg-compact", "--config", "cleanup.policy=compact");
        assertThat(compact.exit()).as(compact.out()).isZero();
        Tool describedCompact = topics("--describe", "--topic", "cfg-compact");
        assertThat(describedCompact.out()).contains("cleanup.policy=compact");
        Tool noCleanup = topics("--create", "--topic", "cfg-none", "--config", "cleanup.policy=");
        assertThat(noCleanup.exit()).as(noCleanup.out()).isNotZero();
        assertThat(noCleanup.out())
                .contains("An empty cleanup.policy (no cleanup) is not supported");

        Tool unknown = topics("--create", "--topic", "cfg-unknown", "--config", "no.such.key=1");
        assertThat(unknown.exit()).as(unknown.out()).isNotZero();
        assertThat(unknown.out()).contains("Unknown topic config name: no.such.key");

        Tool range =
                topics(
                        "--create",
                        "--topic",
                        "cfg-range",
                        "--config",
                        "min.cleanable.dirty.ratio=1.5");
        assertThat(range.exit()).as(range.out()).isNotZero();
        assertThat(range.out()).contains("min.cleanable.dirty.ratio");

        Tool list = topics("--list");
        assertThat(list.out())
                .contains(TOPIC, "cfg-compact")
                .doesNotContain("cfg-none", "cfg-unknown");
    }

    @Test
    void kafkaConfigsAltersAndDescribesTopicsAndTheBrokerAndARestartKeepsIt() throws Exception {
        assertThat(topics("--create", "--topic", TOPIC, "--partitions", "1").exit()).isZero();

        Tool add =
                configs(
                        "--alter",
                        "--entity-type",
                        "topics",
                        "--entity-name",
                        TOPIC,
                        "--add-config",
                        "retention.ms=120000,segment.ms=3600000");
        assertThat(add.exit()).as(add.out()).isZero();
        assertThat(add.out()).contains("Completed updating config for topic " + TOPIC);
        assertThat(localRetentionMs(TOPIC)).as("acts at once").isEqualTo(120000);

        Tool del =
                configs(
                        "--alter",
                        "--entity-type",
                        "topics",
                        "--entity-name",
                        TOPIC,
                        "--delete-config",
                        "segment.ms");
        assertThat(del.exit()).as(del.out()).isZero();

        Tool compact =
                configs(
                        "--alter",
                        "--entity-type",
                        "topics",
                        "--entity-name",
                        TOPIC,
                        "--add-config",
                        "cleanup.policy=[compact,delete],min.cleanable.dirty.ratio=0.2");
        assertThat(compact.exit()).as(compact.out()).isZero();

        Tool all =
                configs("--describe", "--all", "--entity-type", "topics", "--entity-name", TOPIC);
        assertThat(all.exit()).as(all.out()).isZero();
        assertThat(all.out())
                .contains(
                        "retention.ms=120000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=120000")
                .contains(
                        "segment.ms=604800000 sensitive=false synonyms={DEFAULT_CONFIG:log.roll.ms=604800000}")
                .contains("max.message.bytes=1048588")
                .contains(
                        "cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,delete")
                .contains("min.cleanable.dirty.ratio=0.2")
                .contains("unclean.leader.election.enable=false");

        Tool node =
                configs(
                        "--alter",
                        "--entity-type",
                        "brokers",
                        "--entity-name",
                        "0",
                        "--add-config",
                        "log.segment.bytes=2097152");
        assertThat(node.exit()).as(node.out()).isZero();
        Tool dflt =
                configs(
                        "--alter",
                        "--entity-type",
                        "brokers",
                        "--entity-default",
                        "--add-config",
                        "log.retention.ms=90000,message.max.bytes=300000");
        assertThat(dflt.exit()).as(dflt.out()).isZero();
        Tool notDynamic =
                configs(
                        "--alter",
                        "--entity-type",
                        "brokers",
                        "--entity-name",
                        "0",
                        "--add-config",
                        "log.retention.hours=1");
        assertThat(notDynamic.exit()).as(notDynamic.out()).isNotZero();
        assertThat(notDynamic.out()).contains("Cannot update these configs dynamically");

        assertThat(topics("--create", "--topic", "cfg-plain").exit()).isZero();
        assertThat(localRetentionMs("cfg-plain"))
                .as("the cluster default reaches a topic without an override")
                .isEqualTo(90000);

        server.restart();

        Tool broker =
                configs("--describe", "--all", "--entity-type", "brokers", "--entity-name", "0");
        assertThat(broker.exit()).as(broker.out()).isZero();
        assertThat(broker.out())
                .contains(
                        "log.segment.bytes=2097152 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.segment.bytes=2097152")
                .contains(
                        "log.retention.ms=90000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=90000")
                .contains("message.max.bytes=300000");
        Tool defaults = configs("--describe", "--entity-type", "brokers", "--entity-default");
        assertThat(defaults.exit()).as(defaults.out()).isZero();
        assertThat(defaults.out())
                .contains("log.retention.ms=90000")
                .contains("message.max.bytes=300000");

        Tool topic =
                configs(
                        "--describe",
                        "--all",
                        "--entity-type",
                        "topics",
                        "--entity-name",
                        "cfg-plain");
        assertThat(topic.out())
                .contains(
                        "retention.ms=90000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=90000")
                .contains("max.message.bytes=300000")
                .contains(
                        "segment.bytes=2097152 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.segment.bytes=2097152");
        assertThat(localRetentionMs("cfg-plain")).as("after the restart").isEqualTo(90000);
        assertThat(localRetentionMs(TOPIC)).as("the topic's own override wins").isEqualTo(120000);
        assertThat(
                        server.server()
                                .engine()
                                .logManager()
                                .partition(new TopicPartition("cfg-plain", 0))
                                .orElseThrow()
                                .config()
                                .segmentBytes())
                .isEqualTo(2097152);
    }

    @Test
    void adminClientIncrementalAlterConfigsValidatesOnlyAppendsAndAnswersPerResource()
            throws Exception {
        ConfigResource t = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
        ConfigResource missing = new ConfigResource(ConfigResource.Type.TOPIC, "cfg-missing");
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "0");
        try (Admin admin = Clients.admin(server.bootstrap())) {
            Clients.createTopic(server.bootstrap(), TOPIC, 1);
            Map<ConfigResource, Collection<AlterConfigOp>> ops =
                    Map.of(
                            t,
                            List.of(
                                    new AlterConfigOp(
                                            new ConfigEntry("retention.ms", "5000"),
                                            AlterConfigOp.OpType.SET)));
            admin.incrementalAlterConfigs(ops, new AlterConfigsOptions().validateOnly(true))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            assertThat(describe(admin, t).get("retention.ms").source())
                    .as("validateOnly changed nothing")
                    .isNotEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);

            var results =
                    admin.incrementalAlterConfigs(
                                    Map.of(
                                            t,
                                            List.of(
                                                    new AlterConfigOp(
                                                            new ConfigEntry(
                                                                    "cleanup.policy", "delete"),
                                                            AlterConfigOp.OpType.APPEND),
                                                    new AlterConfigOp(
                                                            new ConfigEntry("retention.ms", "5000"),
                                                            AlterConfigOp.OpType.SET)),
                                            missing,
                                            List.of(
                                                    new AlterConfigOp(
                                                            new ConfigEntry("retention.ms", "1"),
                                                            AlterConfigOp.OpType.SET)),
                                            broker,
                                            List.of(
                                                    new AlterConfigOp(
                                                            new ConfigEntry("num.io.threads", "4"),
                                                            AlterConfigOp.OpType.SET))))
                            .values();
            results.get(t).get(30, TimeUnit.SECONDS);
            Throwable m = null;
            try {
                results.get(missing).get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                m = cause(e);
            }
            assertThat(m).isInstanceOf(UnknownTopicOrPartitionException.class);
            Throwable b = null;
            try {
                results.get(broker).get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                b = cause(e);
            }
            assertThat(b).isInstanceOf(InvalidRequestException.class);

            Throwable bad = null;
            try {
                admin.incrementalAlterConfigs(
                                Map.of(
                                        t,
                                        List.of(
                                                new AlterConfigOp(
                                                        new ConfigEntry(
                                                                "compression.type", "brotli"),
                                                        AlterConfigOp.OpType.SET))))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                bad = cause(e);
            }
            assertThat(bad)
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("compression.type");

            Map<String, ConfigEntry> d = describe(admin, t);
            assertThat(d.get("retention.ms").value()).isEqualTo("5000");
            assertThat(d.get("retention.ms").source())
                    .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
            assertThat(d.get("cleanup.policy").value()).isEqualTo("delete");
            assertThat(d.get("cleanup.policy").type()).isEqualTo(ConfigEntry.ConfigType.LIST);
            assertThat(d.get("min.cleanable.dirty.ratio").type())
                    .isEqualTo(ConfigEntry.ConfigType.DOUBLE);
            assertThat(d.get("retention.ms").documentation()).isNotBlank();
            assertThat(d.get("retention.ms").synonyms())
                    .extracting(ConfigEntry.ConfigSynonym::source)
                    .first()
                    .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
            assertThat(describe(admin, broker).get("log.retention.ms").isReadOnly()).isFalse();
            assertThat(describe(admin, broker).get("node.id").isReadOnly()).isTrue();
        }
    }
}
