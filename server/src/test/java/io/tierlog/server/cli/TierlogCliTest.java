package io.tierlog.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import io.tierlog.hot.HotTierOptions;
import io.tierlog.server.ServerOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The CLI: settings precedence and the generated reference table. */
class TierlogCliTest {
    @TempDir Path dir;

    @Test
    void setOverridesConfigFileWhichOverridesDefaults() throws Exception {
        Path f = dir.resolve("server.properties");
        Files.writeString(f, "num.partitions=3\nnode.id=7\n");
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs("--config", f.toString(), "--set", "num.partitions=5");
        Config c = serve.config();
        assertThat(c.get(ServerOptions.NUM_PARTITIONS)).isEqualTo(5);
        assertThat(c.get(ServerOptions.NODE_ID)).isEqualTo(7);
        assertThat(c.get(ServerOptions.DATA_DIR)).isEqualTo("./data");
    }

    @Test
    void configDocsListsEveryOptionOfEveryModule() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ConfigDocsCommand.print(new PrintStream(bytes, true));
        String out = bytes.toString();
        assertThat(out).contains("| key | type | default | doc |");
        ServerOptions.all().forEach(o -> assertThat(out).contains("`" + o.key() + "`"));
        HotTierOptions.all().forEach(o -> assertThat(out).contains("`" + o.key() + "`"));
    }

    @Test
    void dumpSegmentPrintsTheBatchesOfASegmentWrittenByTheHotTier() throws Exception {
        Path partition = dir.resolve("t-0");
        try (io.tierlog.hot.PartitionLog log =
                io.tierlog.hot.PartitionLog.open(
                        partition,
                        io.tierlog.hot.LogConfig.defaults(),
                        io.tierlog.common.Time.SYSTEM)) {
            log.append(
                    org.apache.kafka.common.record.internal.MemoryRecords.withRecords(
                                    org.apache.kafka.common.compress.Compression.NONE,
                                    new org.apache.kafka.common.record.internal.SimpleRecord(
                                            "hello".getBytes()))
                            .buffer());
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream old = System.out;
        int rc;
        try {
            System.setOut(new PrintStream(bytes, true));
            rc =
                    TierlogCli.commandLine()
                            .execute(
                                    "dump-segment",
                                    partition.resolve("00000000000000000000.log").toString(),
                                    "--deep");
        } finally {
            System.setOut(old);
        }
        assertThat(rc).isZero();
        assertThat(bytes.toString()).containsIgnoringCase("offset").isNotBlank();
        assertThat(
                        TierlogCli.commandLine()
                                .execute("dump-segment", dir.resolve("nope.log").toString()))
                .isEqualTo(2);
    }

    @Test
    void everySubcommandIsRegistered() {
        assertThat(TierlogCli.commandLine().getSubcommands())
                .containsKeys("serve", "dump-segment", "config-docs");
    }
}
